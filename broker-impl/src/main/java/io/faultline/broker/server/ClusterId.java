package io.faultline.broker.server;

import io.faultline.broker.config.BrokerConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * The cluster id, kept in meta.properties of the first log dir like Kafka's. Every node of a cluster must report the
 * same one: without a formatting step, it is derived from controller.quorum.voters (the same string on every node);
 * a lone node makes a random one.
 */
final class ClusterId {
    private ClusterId() {
    }

    static String of(BrokerConfig config, Path dir) throws IOException {
        Path meta = dir.resolve("meta.properties");
        Properties p = new Properties();
        if (Files.exists(meta)) {
            try (Reader r = Files.newBufferedReader(meta)) {
                p.load(r);
            }
            String id = p.getProperty("cluster.id");
            if (id != null) return id;
        }
        String id;
        if (config.cluster().standalone()) {
            id = Uuid.randomUuid().toString();
        } else {
            UUID u = UUID.nameUUIDFromBytes(config.cluster().voters().toString().getBytes(StandardCharsets.UTF_8));
            id = new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits()).toString();
        }
        p.setProperty("cluster.id", id);
        p.setProperty("node.id", Integer.toString(config.nodeId()));
        p.setProperty("version", "1");
        try (Writer w = Files.newBufferedWriter(meta)) {
            p.store(w, "Faultline broker");
        }
        return id;
    }
}
