package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fetcher's socket client against a loopback server that answers with the leader's replica handler. */
class BlockingKafkaClientTest {
    @TempDir
    Path dir;

    @Test
    void aFollowerReplicatesOverARealConnectionAndReconnectsAfterTheServerDropsIt() throws Exception {
        try (InJvmCluster c = new InJvmCluster(dir, 2, 1, ReplicationConfig.DEFAULT);
             ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            c.elect(1);
            c.produce("a", "b");
            Thread t = new Thread(() -> serve(server, c.node(1).handler, 2), "test-leader");
            t.setDaemon(true);
            t.start();
            InJvmCluster.Node follower = c.node(2);
            follower.fetchers.close();
            ReplicaFetcher fetcher = new ReplicaFetcher(2, 1, new BlockingKafkaClient("127.0.0.1", server.getLocalPort(),
                    "replica-2", 10_000), c.time, ReplicationConfig.DEFAULT);
            fetcher.addPartition(InJvmCluster.TP, InJvmCluster.TOPIC_ID, ReplicaLog.of(follower.log), c.leaderEpoch);
            fetcher.doWork(); // first connection answers one request, then the server drops it
            assertEquals(List.of("a", "b"), follower.values());
            c.produce("c");
            fetcher.doWork(); // the dropped connection fails this round: back off
            assertEquals(java.util.Optional.of(org.apache.kafka.common.protocol.Errors.NETWORK_EXCEPTION),
                    fetcher.lastError(InJvmCluster.TP));
            c.time.advance(ReplicationConfig.DEFAULT.fetchBackoffMs());
            fetcher.doWork(); // reconnects
            assertEquals(List.of("a", "b", "c"), follower.values());
            assertEquals(2, follower.log.highWatermark());
            t.join(10_000);
        }
    }

    @Test
    void anUnreachableBrokerIsAnIOException() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (BlockingKafkaClient client = new BlockingKafkaClient("127.0.0.1", port, "x", 2_000)) {
            assertThrows(IOException.class, () -> client.send(org.apache.kafka.common.protocol.ApiKeys.FETCH,
                    ReplicaFetcher.FETCH_VERSION, new org.apache.kafka.common.message.FetchRequestData()));
        }
    }

    /** Answers one request per connection, for {@code connections} connections. */
    private static void serve(ServerSocket server, ReplicaRequestHandler handler, int connections) {
        for (int i = 0; i < connections; i++) {
            try (Socket s = server.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                WireCodec.DecodedRequest req = WireCodec.decodeRequest(ByteBuffer.wrap(frame));
                ApiMessage answer = handler.handle(req.apiKey(), req.version(), req.body());
                ByteBuffer out = WireCodec.encodeResponse(req.apiKey(), req.version(), req.header().correlationId(), answer);
                OutputStream os = s.getOutputStream();
                os.write(out.array(), 0, out.limit());
                os.flush();
            } catch (IOException e) {
                return;
            }
        }
    }
}
