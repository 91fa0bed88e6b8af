package io.faultline.workloads.queue;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.queue.QueueAnomaly;
import io.faultline.checker.queue.QueueChecker;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.checker.Checker;
import io.faultline.kafkacompat.KafkaClientLine;
import io.faultline.workloads.PhaseRunner;
import io.faultline.workloads.Workload;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Runs the queue workload against any Kafka-protocol bootstrap string:
 * <pre>
 * QueueWorkloadConfig cfg = QueueWorkloadConfig.defaults("127.0.0.1:9092", "q" + System.nanoTime())
 *         .withRun(42, Duration.ofSeconds(30), 5, 100);
 * try (HistoryRecorder rec = HistoryRecorder.toFile(dir.resolve("history.jsonl"), cfg.concurrency())) {
 *     QueueWorkload.Summary s = QueueWorkload.run(cfg, rec);
 *     CheckResult r = QueueWorkload.checker(cfg).check(rec.ops());
 * }
 * </pre>
 * Two phases: the main phase (generated sends, polls, assigns, optional crashes for {@code timeLimit}), then the
 * final drain ({@link FinalDrain}): every worker reopens, assigns all keys from the beginning and polls until it
 * has read up to the highest offset anyone was told about, bounded by {@code finalTimeout}.
 */
public final class QueueWorkload {
    private QueueWorkload() {
    }

    /**
     * @param ops      history entries recorded by this run
     * @param main     duration of the main phase
     * @param drain    duration of the final drain
     * @param targets  key → highest offset known after the main phase (what the drain had to reach)
     * @param drained  whether every worker reached every target before the drain timed out
     */
    public record Summary(long ops, Duration main, Duration drain, Map<Integer, Long> targets, boolean drained) {
    }

    /** Runs against a real broker with {@link KafkaQueueClient}s. {@code rec} must have cfg.concurrency threads. */
    public static Summary run(QueueWorkloadConfig cfg, HistoryRecorder rec) throws InterruptedException {
        try (TopicManager topics = new TopicManager(cfg)) {
            return run(cfg, rec, thread -> new KafkaQueueClient(cfg, topics, thread));
        }
    }

    /** Runs with the given clients (tests use an in-memory queue), through the one {@link PhaseRunner}. */
    public static Summary run(QueueWorkloadConfig cfg, HistoryRecorder rec, Client.Factory clients)
            throws InterruptedException {
        if (rec.threadCount() != cfg.concurrency()) {
            throw new IllegalArgumentException("recorder has " + rec.threadCount() + " threads, config wants "
                    + cfg.concurrency());
        }
        Workload w = workload(cfg, List.of(checker(cfg)),
                bootstrap -> Workload.Session.of(clients, List.of(), () -> {}));
        try {
            PhaseRunner.Outcome o = PhaseRunner.run(w, cfg.bootstrapServers(), rec, PhaseRunner.Faults.NONE,
                    Duration.ZERO, PhaseRunner.Phases.NONE);
            Map<Integer, Long> targets = FinalDrain.targetsFrom(rec.ops().subList(0, o.opsBeforeFinal()));
            return new Summary(o.ops(), o.main(), o.finalReads(), Map.copyOf(targets), o.reached());
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The queue workload as one value: setup creates a topic per key and opens {@link KafkaQueueClient}s; the
     * main generator is {@link #mainGenerator}; the final reads are the {@link FinalDrain}.
     */
    public static Workload workload(QueueWorkloadConfig cfg, List<Checker> checkers) {
        return workload(cfg, checkers, KafkaClientLine.CURRENT);
    }

    /** The same, with the clients of the given kafka-clients line (3.9.1 for brokers older than 2.1). */
    public static Workload workload(QueueWorkloadConfig cfg, List<Checker> checkers, KafkaClientLine line) {
        return workload(cfg, checkers, bootstrap -> (Workload.Session) line.invokeStatic(KafkaQueueSessions.class.getName(),
                "open", new Class<?>[]{QueueWorkloadConfig.class}, cfg.withBootstrap(bootstrap)));
    }

    private static Workload workload(QueueWorkloadConfig cfg, List<Checker> checkers, Workload.Setup setup) {
        return new Workload("queue", setup, mainGenerator(cfg), new Workload.FinalReads() {
            @Override
            public Gen generator(List<Op> before) {
                return FinalDrain.forAllThreads(FinalDrain.targetsFrom(before), cfg.finalTimeout().toNanos());
            }

            @Override
            public Gen writesBeforeReads(List<Op> before) {
                return topUp(topUpKeys(before), TOP_UP_WRITES, cfg.keys().maxWritesPerKey(), cfg.finalTimeout());
            }

            @Override
            public boolean reached(List<Op> before, List<Op> finalOps) {
                return drainReached(finalOps, FinalDrain.targetsFrom(before), cfg.concurrency());
            }
        }, checkers);
    }

    /** The main phase's generator: seeded queue ops, spaced to the configured rate, for the time limit. */
    public static Gen mainGenerator(QueueWorkloadConfig cfg) {
        QueueOps.Options keys = cfg.keys().withSubscribe(cfg.settings().subscribes());
        Gen g = QueueOps.create(keys, cfg.seed(), cfg.concurrency());
        if (cfg.opsPerSecond() > 0) {
            g = Gens.stagger((long) (1e9 / cfg.opsPerSecond()), cfg.seed() * 31 + 7, g);
        }
        return Gens.timeLimit(cfg.timeLimit().toNanos(), g);
    }

    /**
     * The keys the final writes go to: every key the main phase wrote to, acknowledged or not. A key that never got
     * an acknowledged write still gets its writes after the heal, so a cluster that refused every write of the run
     * is judged (liveness/unwritable-key) instead of leaving nothing to judge.
     */
    static Set<Integer> topUpKeys(List<Op> before) {
        Set<Integer> keys = new java.util.TreeSet<>(FinalDrain.targetsFrom(before).keySet());
        for (Op op : before) {
            if (op.type() == OpType.INVOKE || op.process() == Op.NEMESIS) continue;
            for (MicroOp m : op.mops()) if (m instanceof MicroOp.Send s) keys.add(s.key());
        }
        return keys;
    }

    /** Writes per key after the final heal (see {@link #topUp}). */
    public static final int TOP_UP_WRITES = 20;

    /**
     * A few acknowledged writes to each key after the final heal, before the final drain. A broker that lost an
     * acknowledged tail hands its offsets out again: each of these writes then lands on an offset already
     * acknowledged for another value (inconsistent-offsets, with no drain needed), and the drain's targets move
     * past the hole so it can finish. Values start above {@code maxWritesPerKey}, which the main phase never sends.
     * <p>No write starts after {@code bound}: each write to a cluster that takes none waits out its delivery timeout
     * (15 s), and 20 rounds over every key would then hold the run for most of an hour (seen with a broker that
     * could not load its offset index). The rounds go key by key, so the first writes reach every key they can.
     */
    public static Gen topUp(java.util.Collection<Integer> keys, int writesPerKey, int maxWritesPerKey, Duration bound) {
        return Gens.timeLimit(bound.toNanos(), topUp(keys, writesPerKey, maxWritesPerKey));
    }

    /** {@link #topUp(java.util.Collection, int, int, Duration)} without a bound: every write is made. */
    public static Gen topUp(java.util.Collection<Integer> keys, int writesPerKey, int maxWritesPerKey) {
        List<Gen> sends = new java.util.ArrayList<>();
        for (int i = 1; i <= writesPerKey; i++) {
            for (int k : new java.util.TreeSet<>(keys)) {
                sends.add(Gens.once(Gens.op(Op.SEND, new io.faultline.checker.history.OpValue.Txn(
                        List.of(MicroOp.Send.invoke(k, (long) maxWritesPerKey + i))))));
            }
        }
        return Gens.seq(sends.toArray(Gen[]::new));
    }

    /** The checker matching this run's settings; see {@link #allowedAnomalies}. */
    public static QueueChecker checker(QueueWorkloadConfig cfg) {
        return new QueueChecker(new QueueChecker.Options(allowedAnomalies(cfg.settings()),
                QueueChecker.DEFAULT_MAX_EXAMPLES));
    }

    /**
     * Topic configs that give every queue topic a log of many segments: a new segment every few seconds of appends
     * (segment.ms, which every Kafka-protocol broker accepts from 1 ms) or every MiB (segment.bytes, Kafka 4's floor;
     * bulk sends reach it), and an offset index entry every couple of batches (index.interval.bytes 256). With the
     * brokers' defaults a run's topics never leave their first segment and hold a handful of index entries, so the
     * storage code that matters under faults never runs: rolling, reads that cross a segment boundary, index lookups,
     * truncation and recovery across segments.
     * <p>The indexes (segment.index.bytes 65536: 8,192 offset and 5,461 time entries) hold every entry a recovery of a
     * whole 1 MiB segment can add (at most one per 256 bytes, 4,097). Smaller ones (1,024 bytes until 6 December 2026)
     * made segments roll on a full index too, but Apache Kafka 4.4 overflows such an index when a follower appends a
     * fetch of many batches (it looks for room only before an append), and a crashed node then cannot recover that
     * segment ("Attempt to append to a full index") and exits (docs/versions.md). A finding about Kafka, kept out of
     * every default run.
     */
    public static final Map<String, String> MULTI_SEGMENT_TOPICS = Map.of("segment.ms", "3000", "segment.bytes", "1048576",
            "index.interval.bytes", "256", "segment.index.bytes", "65536");

    /**
     * Which anomalies these settings permit by design, so they are reported but do not make the run invalid.
     * Everything else is a broken promise.
     */
    public static Set<QueueAnomaly> allowedAnomalies(QueueSettings s) {
        // Jepsen's baseline: interleaving producers make int-send-skip normal; with subscribe, a rebalance may
        // move a consumer anywhere, so poll-skip and nonmonotonic-poll are expected too.
        // The queue's producers write without transactions to uncompacted topics: its logs are dense (no offset-gap).
        Set<QueueAnomaly> allowed = EnumSet.copyOf(QueueChecker.allowedFor(s.subscribes(), true));
        if (!s.idempotence() && s.retries() > 0) {
            // At-least-once delivery: a retried batch may be appended twice, and with several requests in flight
            // a retry can land after a later batch.
            allowed.add(QueueAnomaly.DUPLICATE);
            allowed.add(QueueAnomaly.NONMONOTONIC_SEND);
            allowed.add(QueueAnomaly.INT_NONMONOTONIC_SEND);
        }
        if (s.acks().equals("0")) {
            // Fire and forget: the producer reports success without any acknowledgement, so loss is by design.
            allowed.add(QueueAnomaly.LOST_WRITE);
            allowed.add(QueueAnomaly.UNSEEN);
            // Where these settings permit losing acknowledged data, a group moving back below an acknowledged
            // commit is judged as leniently as a lost write (a reset after a truncated log moves it back).
            allowed.add(QueueAnomaly.GROUP_REWIND);
        }
        return allowed;
    }

    /**
     * Whether every worker's ok polls in {@code drainOps} reached every target offset: only then can a value no
     * poll returned be called unseen rather than merely not read yet.
     */
    public static boolean drainReached(List<Op> drainOps, Map<Integer, Long> targets, int threads) {
        Map<Integer, Map<Integer, Long>> reachedByThread = new HashMap<>();
        for (Op op : drainOps) {
            if (op.type() != OpType.OK || !op.f().equals(Op.POLL)) {
                continue;
            }
            Map<Integer, Long> reached = reachedByThread.computeIfAbsent(op.process() % threads, t -> new HashMap<>());
            for (MicroOp m : op.mops()) {
                if (m instanceof MicroOp.Poll p) {
                    p.readsOrEmpty().forEach((k, recs) -> {
                        if (!recs.isEmpty()) {
                            reached.merge(k, recs.get(recs.size() - 1).offset(), Math::max);
                        }
                    });
                }
            }
        }
        for (int t = 0; t < threads; t++) {
            Map<Integer, Long> reached = reachedByThread.getOrDefault(t, Map.of());
            for (Map.Entry<Integer, Long> e : targets.entrySet()) {
                if (reached.getOrDefault(e.getKey(), -1L) < e.getValue()) {
                    return false;
                }
            }
        }
        return true;
    }
}
