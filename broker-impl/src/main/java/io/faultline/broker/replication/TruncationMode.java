package io.faultline.broker.replication;

import java.util.Locale;

/**
 * How a replica that becomes follower finds where its log stops agreeing with the leader's
 * ({@code faultline.replication.truncation}).
 */
public enum TruncationMode {
    /** KIP-101/279/320: ask the leader where our last epoch ended (diverging-epoch answer of Fetch). Safe. */
    LEADER_EPOCH("leader-epoch"),
    /**
     * Kafka before KIP-101: truncate to our own high watermark and fetch from there. Loses acknowledged writes
     * (KIP-101 scenario 1) and lets replicas diverge (scenario 2, KIP-279); kept on purpose so the harness can
     * show it.
     */
    HIGH_WATERMARK("high-watermark");

    public static final String CONFIG = "faultline.replication.truncation";

    private final String configValue;

    TruncationMode(String configValue) {
        this.configValue = configValue;
    }

    public String configValue() {
        return configValue;
    }

    /** Parses the config value; null means the default, anything unknown is a clear error. */
    public static TruncationMode parse(String value) {
        if (value == null || value.isBlank()) return LEADER_EPOCH;
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (TruncationMode m : values()) if (m.configValue.equals(v)) return m;
        throw new IllegalArgumentException(CONFIG + " must be leader-epoch or high-watermark, got '" + value + "'");
    }
}
