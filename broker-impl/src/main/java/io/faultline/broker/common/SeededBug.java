package io.faultline.broker.common;

import java.util.Arrays;
import java.util.Optional;

/**
 * A mistake real brokers have made, kept here on purpose so the harness can show it finds it. Each is switched on
 * by {@code faultline.bug.<name>=true} and runs only with {@code faultline.bugs.allowed=true}; all are off by
 * default. The names are a contract (the {@code bugs} command of the harness uses them): never rename one.
 */
public enum SeededBug {
    HW_FROM_LEADER_LEO("hw-from-leader-leo",
            "the leader advances the high watermark to its own log end, ignoring followers"),
    ACKS_ALL_LEADER_ONLY("acks-all-leader-only",
            "acks=all is answered after the leader's append, before followers have the records"),
    MIN_ISR_IGNORED("min-isr-ignored",
            "min.insync.replicas is never enforced (no NOT_ENOUGH_REPLICAS or _AFTER_APPEND)"),
    FOLLOWER_NO_TRUNCATE("follower-no-truncate",
            "a follower never truncates on a leader change and keeps its divergent tail"),
    ELECTION_IGNORES_ISR("election-ignores-isr",
            "the controller's clean election picks any live replica, not only ISR members"),
    EPOCH_NOT_BUMPED("epoch-not-bumped",
            "the controller does not bump the leader epoch on an election"),
    FENCED_LEADER_SERVES("fenced-leader-serves",
            "a broker that lost leadership keeps accepting produce and serving fetches as leader"),
    READ_PAST_HW("read-past-hw",
            "consumer fetches are served up to the log end, not the high watermark"),
    ISR_SHRINK_LOCAL("isr-shrink-local",
            "the leader shrinks the ISR locally (and uses it for the high watermark) without telling the controller"),
    DEDUP_NOT_REBUILT("dedup-not-rebuilt",
            "followers do not rebuild idempotent-producer state from replicated batches, so a new leader keeps retries"),
    OFFSET_COMMIT_UNREPLICATED("offset-commit-unreplicated",
            "an OffsetCommit is answered after the leader's append, before it is replicated"),
    RECOVERY_KEEPS_TORN_BATCH("recovery-keeps-torn-batch",
            "log recovery at startup keeps a torn or corrupt last batch instead of truncating it"),
    LSO_IGNORES_OPEN_TXN("lso-ignores-open-txn",
            "the last stable offset is the high watermark: read_committed readers see open transactions' records"),
    MARKERS_SKIPPED_ON_FAILOVER("markers-skipped-on-failover",
            "a coordinator that loads a prepared transaction completes it without writing its markers"),
    ZOMBIE_NOT_FENCED("zombie-not-fenced",
            "an abort marker's bumped epoch is not recorded on the partition, so the fenced producer's later batches are accepted"),
    ABORTED_INDEX_NOT_RECOVERED("aborted-index-not-recovered",
            "the aborted-transaction index is not rebuilt when a partition is loaded, so read_committed returns aborted records");

    /** Prefix of the per-bug switches in server.properties. */
    public static final String PREFIX = "faultline.bug.";
    /** The switch without which no seeded bug runs. */
    public static final String ALLOWED = "faultline.bugs.allowed";

    private final String configName;
    private final String description;

    SeededBug(String configName, String description) {
        this.configName = configName;
        this.description = description;
    }

    /** The name after {@value #PREFIX}, e.g. {@code read-past-hw}. */
    public String configName() {
        return configName;
    }

    /** One line: the real-world mistake this bug reproduces. */
    public String description() {
        return description;
    }

    /** The full setting, e.g. {@code faultline.bug.read-past-hw}. */
    public String key() {
        return PREFIX + configName;
    }

    public static Optional<SeededBug> byName(String name) {
        return Arrays.stream(values()).filter(b -> b.configName.equals(name)).findFirst();
    }
}
