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
                                    clientTimeoutMs, ABORT_ONE_IN, c.seed() * 131 + thread + 7919L * n, finalReadMs(cfg));
                        },
                        List.copyOf(topics.mapping().topicsOf(all)), topics::close);
            } catch (RuntimeException e) {
                topics.close();
                throw e;
            }
        };
        return new Workload("txn-queue", setup, mainGenerator(cfg.seed(), keys, cfg.opsPerSecond(), cfg.timeLimit()),
                new TxnFinalReads(keys, cfg.finalTimeout().toNanos()), checkers);
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
