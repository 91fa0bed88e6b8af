package io.faultline.workloads.kv;

import io.faultline.checker.Checker;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A compacted topic under faults ({@link KvChecker}): a few keys overwritten again and again on one partition of
 * {@code prefix-kv}, whose small segments (a new one every 2 s of appends) are compacted while the faults run; after the
 * heal the partition is read from its beginning. It reaches the compactor, compacted-log recovery and the reading of a
 * log with gaps, which the queue's dense topics never do. After the heal each key is written once more before the
 * read, so there is always an acknowledged latest value to find.
 */
public final class KvWorkload {
    /**
     * cleanup.policy=compact, segments rolled every 2 s, compacted as soon as any record is dirty, and tombstones kept
     * 5 s after their first clean (delete.retention.ms; a day by default), so the cleaner removes them within a run.
     */
    public static final Map<String, String> TOPIC_CONFIGS = Map.of("cleanup.policy", "compact", "segment.ms", "2000",
            "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0", "delete.retention.ms", "5000");

    private KvWorkload() {}

    public static String topic(String prefix) {
        return prefix + KvOps.TOPIC_SUFFIX;
    }

    public static Workload workload(String prefix, short replicationFactor, long seed, int keys, double opsPerSecond,
                                    Duration timeLimit, int clientTimeoutMs, List<Checker> checkers) {
        return workload(prefix, replicationFactor, seed, keys, opsPerSecond, timeLimit, clientTimeoutMs, false, checkers);
    }

    /** {@code transactions}: a third of the writes are transactions, a quarter of those aborted (see KvClient). */
    public static Workload workload(String prefix, short replicationFactor, long seed, int keys, double opsPerSecond,
                                    Duration timeLimit, int clientTimeoutMs, boolean transactions, List<Checker> checkers) {
        String topic = topic(prefix);
        Workload.Setup setup = bootstrap -> {
            createTopic(bootstrap, topic, replicationFactor);
            return Workload.Session.of(thread -> new KvClient(bootstrap, topic, clientTimeoutMs, transactions), List.of(topic), () -> {});
        };
        Gen g = KvOps.random(seed, keys);
        if (opsPerSecond > 0) g = Gens.stagger((long) (1e9 / opsPerSecond), seed * 31 + 13, g);
        return new Workload("kv", setup, Gens.timeLimit(timeLimit.toNanos(), g), Workload.FinalReads.always(() -> KvOps.finalWrites(keys), KvOps::finalRead), checkers);
    }

    static void createTopic(String bootstrap, String topic, short replicationFactor) throws Exception {
        createTopic(bootstrap, topic, replicationFactor, TOPIC_CONFIGS);
    }

    /** A side workload's one-partition topic with its configs; one that exists already (a rerun's) is kept. */
    public static void createTopic(String bootstrap, String topic, short replicationFactor, Map<String, String> configs)
            throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, replicationFactor).configs(configs))).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) throw e;
        }
    }
}
