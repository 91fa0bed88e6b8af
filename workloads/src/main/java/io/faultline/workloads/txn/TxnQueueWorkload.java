package io.faultline.workloads.txn;

import io.faultline.checker.Checker;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.workloads.queue.QueueWorkloadConfig;
import io.faultline.workloads.queue.TopicManager;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * The transactional queue as one value: one transactional producer and read_committed consumer per worker;
 * transactions of sends and polls, committed with the consumer's offsets or aborted. After the heal, the
 * {@link TxnFinalReads} read every partition whole, so the checks judge the entire committed logs, not just the
 * stretches the workers' consumers happened to poll.
 */
public final class TxnQueueWorkload {
    private TxnQueueWorkload() {}

    /** Transactions abort one in {@value}. */
    public static final int ABORT_ONE_IN = 4;

    /** How long the set-up waits for the cluster's first transactional producer id (see TxnQueueClient#warmUp). */
    static final int WARM_UP_BOUND_MS = 120_000;

    public static Workload workload(QueueWorkloadConfig cfg, int keys, int clientTimeoutMs, List<Checker> checkers) {
        Workload.Setup setup = bootstrap -> {
            QueueWorkloadConfig c = cfg.withBootstrap(bootstrap);
            TopicManager topics = new TopicManager(c);
            try {
                List<Integer> all = IntStream.range(0, keys).boxed().toList();
                topics.ensure(all);
                String notWarm = TxnQueueClient.warmUp(bootstrap, c.topicPrefix() + "-warm-up", clientTimeoutMs, WARM_UP_BOUND_MS);
                if (notWarm != null) {
                    System.err.println("faultline: the transaction coordinator did not answer before the workload: " + notWarm);
                }
                // One transactional.id per process, as Jepsen's processes: a client replaced after an error keeps
                // its id (the new producer fences the old), but a process retired by an info completion (its commit
                // may or may not have happened) never returns, and its thread's next process takes a new id. What
                // the retired one left open is then for the coordinator to decide (its recovery of a prepared
                // commit, or the transaction timeout), not for a successor's fencing.
                Map<Integer, Integer> processes = new ConcurrentHashMap<>();
                return Workload.Session.of(thread -> {
                            int n = processes.merge(thread, 1, Integer::sum) - 1;
                            return new TxnQueueClient(bootstrap, topics.mapping(), keys, transactionalId(c.topicPrefix(), thread, n),
                                    clientTimeoutMs, ABORT_ONE_IN, c.seed() * 131 + thread + 7919L * n, finalReadMs(cfg),
                                    c.settings().clientRack(thread));
                        },
                        faultTargets(bootstrap, topics.mapping().topicsOf(all), notWarm == null ? List.of(
                                transactionalId(c.topicPrefix(), 0, 0), transactionalId(c.topicPrefix(), 1, 0)) : List.of()),
                        topics::close);
            } catch (RuntimeException e) {
                topics.close();
                throw e;
            }
        };
        return new Workload("txn-queue", setup, mainGenerator(cfg.seed(), keys, cfg.opsPerSecond(), cfg.timeLimit()),
                new TxnFinalReads(keys, cfg.finalTimeout().toNanos()), checkers);
    }

    /**
     * What leader-aimed faults aim at: the key topics' partitions, and the {@code __transaction_state} partitions of
     * the first two processes' transactional ids (Kafka's rule: abs(hash) mod its partitions), whose leaders are those
     * transactions' coordinators: a coordinator lost between a commit's PREPARE and its markers, or while it times a
     * transaction out, is where a transactional broker's recovery is tested. Only the topics when the transaction
     * state topic cannot be described.
     */
    static List<String> faultTargets(String bootstrap, java.util.Collection<String> topics, List<String> transactionalIds) {
        List<String> out = new java.util.ArrayList<>(topics);
        if (transactionalIds.isEmpty()) return List.copyOf(out);
        String state = org.apache.kafka.common.internals.Topic.TRANSACTION_STATE_TOPIC_NAME;
        java.util.Properties p = new java.util.Properties();
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (var admin = org.apache.kafka.clients.admin.Admin.create(p)) {
            int n = admin.describeTopics(List.of(state)).allTopicNames().get(10, java.util.concurrent.TimeUnit.SECONDS)
                    .get(state).partitions().size();
            for (String id : transactionalIds) {
                String target = state + ":" + coordinatorPartition(id, n);
                if (!out.contains(target)) out.add(target);
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
        }
        return List.copyOf(out);
    }

    /** The transaction state partition of a transactional id, as Kafka's coordinator places it. */
    static int coordinatorPartition(String transactionalId, int partitions) {
        return org.apache.kafka.common.utils.Utils.abs(transactionalId.hashCode()) % partitions;
    }

    /** The transactional.id (and consumer group) of a thread's {@code n}-th process, counting from 0. */
    static String transactionalId(String prefix, int thread, int n) {
        return prefix + "-t" + thread + (n == 0 ? "" : "-p" + n);
    }

    /** The final poll's own deadline: most of the final phase's bound, leaving time to record what it read. */
    static long finalReadMs(QueueWorkloadConfig cfg) {
        long ms = cfg.finalTimeout().toMillis();
        return Math.max(1, ms - Math.min(ms / 5, 5_000));
    }

    /** Seeded transactions at {@code opsPerSecond} for {@code timeLimit}. */
    public static Gen mainGenerator(long seed, int keys, double opsPerSecond, Duration timeLimit) {
        Gen g = TxnOps.create(seed, keys);
        g = Gens.stagger((long) (1e9 / opsPerSecond), seed * 31 + 7, g);
        return Gens.timeLimit(timeLimit.toNanos(), g);
    }
}
