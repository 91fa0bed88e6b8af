package io.faultline.kafkacompat;

import org.apache.kafka.clients.admin.Admin;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Reports the kafka-clients version it is linked against (its bytecode names a Kafka class, so it is isolated). */
public final class VersionProbe {
    private VersionProbe() {}

    /** The version file of the kafka-clients jar that the linked Admin class came with. */
    public static String version() throws IOException {
        try (InputStream in = Admin.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            var p = new Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }

    public static String loaderOfAdmin() {
        return Admin.class.getClassLoader().getName();
    }
}
