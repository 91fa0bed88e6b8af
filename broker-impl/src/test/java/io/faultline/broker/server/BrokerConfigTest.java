package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.storage.CleanupPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigTest {
    @TempDir
    Path dir;

    @Test
    void readsAServerPropertiesFileWithKafkaNames() throws Exception {
        Path f = dir.resolve("server.properties");
        Files.writeString(f, String.join("\n",
                "node.id=3",
                "listeners=PLAINTEXT://0.0.0.0:19092",
                "advertised.listeners=PLAINTEXT://broker-3:19092",
                "log.dirs=/data/a,/data/b",
                "log.retention.hours=2",
                "log.segment.bytes=1048576",
                "log.cleanup.policy=compact",
                "socket.request.max.bytes=1000",
                "max.connections=7",
                "auto.create.topics.enable=false",
                "offsets.topic.num.partitions=5",
                "faultline.fsync.every.append=true"));
        BrokerConfig c = BrokerConfig.load(f);
        assertEquals(3, c.nodeId());
        assertEquals("0.0.0.0", c.listenerHost());
        assertEquals(19092, c.listenerPort());
        assertEquals("broker-3", c.advertisedHost());
        assertEquals(19092, c.advertisedPort());
        assertEquals(Path.of("/data/a"), c.logDir());
        assertEquals(2 * 3_600_000L, c.defaultLogConfig().retentionMs());
        assertEquals(1048576, c.defaultLogConfig().segmentBytes());
        assertEquals(Set.of(CleanupPolicy.COMPACT), c.defaultLogConfig().cleanupPolicy());
        assertTrue(c.defaultLogConfig().fsyncEveryAppend());
        assertEquals(1000, c.socketRequestMaxBytes());
        assertEquals(7, c.maxConnections());
        assertEquals(false, c.autoCreateTopics());
        assertEquals(5, c.offsetsTopicPartitions());
    }

    @Test
    void defaultsFollowKafka() throws Exception {
        Path f = dir.resolve("min.properties");
        Files.writeString(f, "listeners=PLAINTEXT://127.0.0.1:9092\nlog.dirs=" + dir + "\n");
        BrokerConfig c = BrokerConfig.load(f);
        assertEquals("127.0.0.1", c.advertisedHost(), "advertised defaults to the listener");
        assertEquals(104857600, c.socketRequestMaxBytes());
        assertEquals(50, c.offsetsTopicPartitions());
        assertEquals(3000, c.groupInitialRebalanceDelayMs());
        assertEquals(1, c.numPartitions());
        assertTrue(c.autoCreateTopics());
    }
}
