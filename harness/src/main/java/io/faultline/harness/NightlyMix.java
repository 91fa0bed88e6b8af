package io.faultline.harness;

import io.faultline.docker.sut.KafkaSettings;
import io.faultline.nemesis.compose.CompositionKind;
import io.faultline.nemesis.compose.StepOps;
import io.faultline.workloads.queue.QueueOps;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nightly mix (`--mix nightly`, the default of `campaign`): a workload shape and fault compositions meant to expose
 * bugs nobody predicted, generic over any particular one. The workload is the queue with more going on at once:
 * several producers per key (every writing worker writes every key; the first three workers only read, so reads
 * go on while writes wait on a partition that cannot commit), half of them with several one-record batches of a
 * partition in flight (up to 8 sends per op, kafka-clients' default of 5 requests in flight, unbounded retries), keys that retire after {@code maxWritesPerKey} values so fresh partitions keep being created and elected,
 * consumers that subscribe (a group, rebalancing) and part of the time assign by hand (half of those assigns start
 * at the partitions' ends: tail readers, which read records moments after they are written), client crashes and restarts
 * (each restart is a new producer id), and the final writes after the heal that prove a lost tail. The faults are
 * role-aware compositions ({@link CompositionKind}), drawn at random or guided by coverage.
 */
final class NightlyMix {
    private NightlyMix() {}

    static final String NAME = "nightly";
    /** The workload name the nightly mix runs (stored in test.json, so analyze and replay rebuild it). */
    static final String WORKLOAD = "queue-nightly";
    /** test.json's key for the mix a run performed (what replay reads). */
    static final String TEST_JSON_KEY = "mix";

    /**
     * Producer settings of the nightly queue unless `--producer-prop` says otherwise: a short linger. Batch sizes are
     * the queue's own (KafkaQueueClient: half the workers send one-record batches, pipelined; half batch an op's
     * records). batch.size=256 was tried here and put a whole op of up to 8 small records in one batch.
     */
    static final Map<String, String> PRODUCER_DEFAULTS = Map.of("linger.ms", "2");

    /**
     * Broker settings of the nightly mix unless `--broker-prop` says otherwise: the controller's automatic preferred
     * leader election (auto.leader.rebalance.enable, on by default in Kafka) checks every 10 s instead of every 300 s,
     * so within a run, as in production over hours, leadership also moves back to a returned node on a healthy
     * cluster, not only away from a failed one. Kafka has had the setting since 0.8.1; broker-impl reads it too.
     * Reads from the closest replica (KIP-392, Kafka 2.4 on): the rack-aware replica selector, so the workers'
     * consumers, each naming a node's rack (Workloads.clientRacks), read from followers too.
     */
    static final Map<String, String> BROKER_DEFAULTS = Map.of("leader.imbalance.check.interval.seconds", "10",
            "replica.selector.class", Workloads.RACK_AWARE_SELECTOR);

    /** The run's broker properties over the mix's defaults (the user's win). */
    static Map<String, String> brokerProperties(TestConfig base) {
        var broker = new LinkedHashMap<>(BROKER_DEFAULTS);
        broker.putAll(base.brokerProperties());
        return broker;
    }

    /**
     * Workers that only poll (the first three; with fewer workers, all but one). Measured on 3 December 2026: with
     * every worker also sending, an isolated leader stalled the whole workload (2 ops completed in 4.3 s across ten
     * workers, all waiting on sends to its partition), so nothing read what that leader served meanwhile.
     */
    static final int READERS = 3;

    /** The nightly queue's op mix on top of the run's key settings. */
    static QueueOps.Options keyOptions(QueueOps.Options base) {
        return base.withMix(8, 0.5, 1.0 / 32, 1.0 / 200).withAssignShare(0.5).withTailShare(0.5).withReaders(READERS);
    }

    /**
     * The mix's own settings, stored in test.json so a replay plans the same compositions.
     *
     * @param guided        plan from the coverage map (stored in {@code coverage}) instead of uniformly
     * @param density       share of the run under faults
     * @param healthySeconds the shortest healthy window between compositions
     * @param compositions  the composition ids to draw from
     * @param links         whether slow links (Toxiproxy routes) are set up
     * @param coverage      the coverage map a guided plan was made from (null when not guided)
     */
    record Spec(boolean guided, double density, int healthySeconds, List<String> compositions, boolean links,
                Map<String, Object> coverage) {
        Spec {
            compositions = List.copyOf(compositions);
            if (compositions.isEmpty()) throw new IllegalArgumentException("--compositions names none");
            compositions.forEach(CompositionKind::of); // an unknown id: one line listing the known ones
            if (!(density > 0 && density <= 1)) throw new IllegalArgumentException("--fault-density must be in (0, 1], got " + density);
            if (healthySeconds < 0) throw new IllegalArgumentException("--healthy-window must be at least 0");
        }

        static List<String> allCompositions() {
            return Arrays.stream(CompositionKind.values()).map(CompositionKind::id).toList();
        }

        List<CompositionKind> kinds() {
            return compositions.stream().map(CompositionKind::of).toList();
        }

        Spec withCoverage(Map<String, Object> snapshot) {
            return new Spec(guided, density, healthySeconds, compositions, links, snapshot);
        }

        Map<String, Object> toJson() {
            var m = new LinkedHashMap<String, Object>();
            m.put("name", NAME);
            m.put("guided", guided);
            m.put("fault-density", density);
            m.put("healthy-window", healthySeconds);
            m.put("compositions", compositions);
            m.put("links", links);
            if (coverage != null) m.put("coverage", coverage);
            return m;
        }

        @SuppressWarnings("unchecked")
        static java.util.Optional<Spec> of(Map<String, Object> testJson) {
            Object entry = testJson.get(TEST_JSON_KEY);
            if (entry == null) return java.util.Optional.empty();
            if (!(entry instanceof Map<?, ?> m) || !NAME.equals(m.get("name"))) {
                throw new IllegalArgumentException("test.json: \"" + TEST_JSON_KEY + "\" is not a mix this build knows: " + entry);
            }
            return java.util.Optional.of(new Spec(Boolean.TRUE.equals(m.get("guided")),
                    ((Number) m.get("fault-density")).doubleValue(), ((Number) m.get("healthy-window")).intValue(),
                    (List<String>) m.get("compositions"), Boolean.TRUE.equals(m.get("links")),
                    (Map<String, Object>) m.get("coverage")));
        }
    }

    /**
     * The fault packages the compositions act through (the run's --nemesis, for the report and replay): disk faults
     * only when torn-write-crash is among them and membership only with replica-set-churn, so a stored spec without
     * them replays with the packages it had.
     */
    static List<String> packages(Spec spec) {
        return StepOps.packages(true, spec.links(), spec.kinds().contains(CompositionKind.TORN_WRITE_CRASH),
                spec.kinds().contains(CompositionKind.REPLICA_SET_CHURN));
    }

    /** The transactional queue, which the compositions fault as it is (its own shape and producers). */
    static final String TXN_WORKLOAD = "txn-queue";

    /**
     * A run's configuration under the nightly mix: the nightly queue, the compositions' packages, its producer settings.
     * The transactional queue keeps its own shape and takes the compositions alone; there a composition's COORDINATOR is
     * the transaction coordinator of the workload's transactional ids (ComposedSchedule).
     */
    static TestConfig configure(TestConfig base, Spec spec) {
        if (TXN_WORKLOAD.equals(base.workload())) {
            return new TestConfig(base.sut(), base.nodes(), base.workload(), packages(spec), base.timeLimitSeconds(),
                    base.rate(), base.concurrency(), base.keys(), base.acks(), base.idempotence(), base.minIsr(),
                    base.replicationFactor(), base.unclean(), base.subVia(), base.nemesisIntervalSeconds(), base.seed(),
                    base.recoverySeconds(), base.drainSeconds(), base.flushMessages(), base.flushMs(),
                    brokerProperties(base), base.producerProperties());
        }
        if (!"queue".equals(base.workload()) && !WORKLOAD.equals(base.workload())) {
            throw new IllegalArgumentException("--mix nightly drives the queue or txn-queue workload, not --workload " + base.workload());
        }
        var producer = new LinkedHashMap<>(PRODUCER_DEFAULTS);
        producer.putAll(base.producerProperties());
        return new TestConfig(base.sut(), base.nodes(), WORKLOAD, packages(spec), base.timeLimitSeconds(), base.rate(),
                base.concurrency(), base.keys(), base.acks(), base.idempotence(), base.minIsr(), base.replicationFactor(),
                base.unclean(), base.subVia(), base.nemesisIntervalSeconds(), base.seed(), base.recoverySeconds(),
                base.drainSeconds(), base.flushMessages(), base.flushMs(), brokerProperties(base), producer)
                .withBulkSends(base.bulkSends());
    }

    /** The broker session the compositions pause past: the run's own setting, else the harness default. */
    static long sessionTimeoutMillis(TestConfig config) {
        String set = config.brokerProperties().get("broker.session.timeout.ms");
        if (set != null) {
            try {
                return Long.parseLong(set);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("broker.session.timeout.ms must be a number, got " + set);
            }
        }
        return KafkaSettings.defaults().brokerSessionTimeoutMs();
    }
}
