package io.faultline.workloads.offsets;

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
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Committed consumer-group offsets as linearizable registers (the coordinator should make OffsetCommit and
 * OffsetFetch of one group linearizable). Setup creates the one topic whose partitions the groups commit for.
 */
public final class OffsetWorkload {
    private OffsetWorkload() {}

    /** The run's names: topic {@code prefix-offsets}, groups {@code prefix-g0, prefix-g1, ...}. */
    public record Names(String prefix) {
        public String topic() {
            return prefix + "-offsets";
        }
    }

    /** Creates the topic (idempotent); its partitions are the registers' partitions. */
    public static void createTopic(String bootstrap, Names names, short replication) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(names.topic(), OffsetOps.PARTITIONS, replication)))
                    .all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) throw e;
        }
    }

    /**
     * The {@code __consumer_offsets} partition that holds the group (Kafka's rule: abs(hash) mod its partitions),
     * once a first OffsetFetch has made the coordinator create the topic; empty if it does not show up in time.
     */
    static java.util.Optional<Integer> coordinatorPartition(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        String offsets = org.apache.kafka.common.internals.Topic.GROUP_METADATA_TOPIC_NAME;
        try (Admin admin = Admin.create(p)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                try {
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                    int n = admin.describeTopics(List.of(offsets)).allTopicNames().get(10, TimeUnit.SECONDS)
                            .get(offsets).partitions().size();
                    return java.util.Optional.of(org.apache.kafka.common.utils.Utils.abs(group.hashCode()) % n);
                } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
                    Thread.sleep(500);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return java.util.Optional.empty();
    }

    /** Seeded reads and writes at {@code opsPerSecond} for {@code timeLimit}. */
    public static Gen mainGenerator(long seed, int keys, double opsPerSecond, Duration timeLimit) {
        Gen g = OffsetOps.random(seed, keys);
        if (opsPerSecond > 0) g = Gens.stagger((long) (1e9 / opsPerSecond), seed * 31 + 7, g);
        return Gens.timeLimit(timeLimit.toNanos(), g);
    }

    /**
     * The offsets workload as one value: setup creates the topic; clients commit and fetch offsets; after the heal
     * and the recovery wait, one final read of every key (nothing is left to drain, so it always reaches its end).
     */
    public static Workload workload(Names names, short replication, long seed, int keys, double opsPerSecond,
                                    Duration timeLimit, int clientTimeoutMs, List<Checker> checkers) {
        return workload(names, replication, seed, keys, opsPerSecond, timeLimit, clientTimeoutMs, false, checkers);
    }

    /** As above; {@code requireStable} reads ask for stable offsets (see {@link OffsetClient}). */
    public static Workload workload(Names names, short replication, long seed, int keys, double opsPerSecond,
                                    Duration timeLimit, int clientTimeoutMs, boolean requireStable,
                                    List<Checker> checkers) {
        Workload.Setup setup = bootstrap -> {
            createTopic(bootstrap, names, replication);
            // Leader-aimed faults hit the coordinator of the first group (the leader of its offsets partition): the
            // workload's topic holds no data, so its leader is no better a target than any node.
            String target = coordinatorPartition(bootstrap, OffsetOps.groupName(names.prefix(), 0))
                    .map(p -> org.apache.kafka.common.internals.Topic.GROUP_METADATA_TOPIC_NAME + ":" + p)
                    .orElse(names.topic());
            return Workload.Session.of(thread -> new OffsetClient(bootstrap, names.topic(), names.prefix(), clientTimeoutMs, requireStable),
                    List.of(target), () -> {});
        };
        return new Workload(requireStable ? "offsets-stable" : "offsets", setup, mainGenerator(seed, keys, opsPerSecond, timeLimit),
                Workload.FinalReads.always(() -> OffsetOps.finalReads(keys)), checkers);
    }
}
