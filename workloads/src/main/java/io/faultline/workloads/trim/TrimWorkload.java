package io.faultline.workloads.trim;

import io.faultline.checker.Checker;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A log whose start keeps moving under faults ({@link TrimChecker}): one partition of {@code prefix-trim} written
 * to, read from its start and cut with DeleteRecords while the faults run; after the heal it is read from its start
 * to its end. Small segments (a new one every 2 s of appends) make the cuts delete whole segments as well as move the
 * start inside one. It reaches what the queue's logs, which always start at 0, never do: the log start offset and its
 * checkpoint, its spread to followers, deleting segments, and recovering, electing and fetching from a log that
 * does not start at its first segment.
 */
public final class TrimWorkload {
    /** Segments rolled every 2 s; nothing removed by time or size (only DeleteRecords moves the start). */
    public static final Map<String, String> TOPIC_CONFIGS = Map.of("segment.ms", "2000", "retention.ms", "-1",
            "retention.bytes", "-1");

    private TrimWorkload() {}

    public static String topic(String prefix) {
        return prefix + TrimOps.TOPIC_SUFFIX;
    }

    public static Workload workload(String prefix, short replicationFactor, long seed, double opsPerSecond,
                                    Duration timeLimit, int clientTimeoutMs, List<Checker> checkers) {
        String topic = topic(prefix);
        Workload.Setup setup = bootstrap -> {
            io.faultline.workloads.kv.KvWorkload.createTopic(bootstrap, topic, replicationFactor, TOPIC_CONFIGS);
            return Workload.Session.of(thread -> new TrimClient(bootstrap, topic, clientTimeoutMs), List.of(topic), () -> {});
        };
        Gen g = TrimOps.random(seed);
        if (opsPerSecond > 0) g = Gens.stagger((long) (1e9 / opsPerSecond), seed * 31 + 17, g);
        return new Workload("trim", setup, Gens.timeLimit(timeLimit.toNanos(), g), Workload.FinalReads.always(TrimOps::finalWrite,
                () -> Gens.seq(TrimOps.finalRead(), TrimOps.finalDelete())), checkers);
    }
}
