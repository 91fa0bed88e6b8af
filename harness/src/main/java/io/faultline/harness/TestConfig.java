package io.faultline.harness;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every parameter of one test run. Written to test.json, read back by `analyze` and `replay`, so a run can be
 * repeated exactly from its seed. {@code flushMessages} / {@code flushMs} are the brokers' log.flush.interval.messages
 * / .ms (null: the system's default, no fsync per append), which decide what power loss may take.
 * {@code unclean} is unclean.leader.election.enable when the run states it, null when the system's own default applies
 * (Apache Kafka before 0.11: true; from 0.11 and broker-impl: false): {@link #uncleanInEffect()} is the value the brokers use.
 * {@code producerProperties} override the queue workload's producer settings (a scenario's, e.g. batch.size).
 */
public record TestConfig(
        String sut,
        int nodes,
        String workload,
        List<String> nemesis,
        int timeLimitSeconds,
        double rate,
        int concurrency,
        int keys,
        String acks,
        boolean idempotence,
        int minIsr,
        int replicationFactor,
        Boolean unclean,
        String subVia,
        int nemesisIntervalSeconds,
        long seed,
        int recoverySeconds,
        int drainSeconds,
        Long flushMessages,
        Long flushMs,
        Map<String, String> brokerProperties,
        Map<String, String> producerProperties,
        double faultOverlap,
        boolean besides,
        double bulkSends) {

    /** Producer settings the checker's allowances depend on: only their own flags set them. */
    static final java.util.Set<String> CHECKED_PRODUCER_SETTINGS = java.util.Set.of("acks", "enable.idempotence",
            "retries", "bootstrap.servers", "transactional.id", "max.in.flight.requests.per.connection");

    /** test.json's key for {@link #systemDefaults()}: settings the run did not state, with the system's value. */
    public static final String SYSTEM_DEFAULTS = "system-defaults";

    /** broker-impl's own settings a run may set (`--truncation`, `--broker-prop`, seeded bugs). */
    public static final String TRUNCATION = "faultline.replication.truncation";

    /** A test with the system's default flushing and no extra broker properties. */
    public TestConfig(String sut, int nodes, String workload, List<String> nemesis, int timeLimitSeconds, double rate,
                      int concurrency, int keys, String acks, boolean idempotence, int minIsr, int replicationFactor,
                      Boolean unclean, String subVia, int nemesisIntervalSeconds, long seed, int recoverySeconds,
                      int drainSeconds) {
        this(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks, idempotence, minIsr,
                replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed, recoverySeconds, drainSeconds, null, null,
                Map.of());
    }

    /** A test with the system's default flushing. */
    public TestConfig(String sut, int nodes, String workload, List<String> nemesis, int timeLimitSeconds, double rate,
                      int concurrency, int keys, String acks, boolean idempotence, int minIsr, int replicationFactor,
                      Boolean unclean, String subVia, int nemesisIntervalSeconds, long seed, int recoverySeconds,
                      int drainSeconds, Map<String, String> brokerProperties) {
        this(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks, idempotence, minIsr,
                replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed, recoverySeconds, drainSeconds, null, null,
                brokerProperties);
    }

    /** A test without extra broker properties. */
    public TestConfig(String sut, int nodes, String workload, List<String> nemesis, int timeLimitSeconds, double rate,
                      int concurrency, int keys, String acks, boolean idempotence, int minIsr, int replicationFactor,
                      Boolean unclean, String subVia, int nemesisIntervalSeconds, long seed, int recoverySeconds,
                      int drainSeconds, Long flushMessages, Long flushMs) {
        this(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks, idempotence, minIsr,
                replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed, recoverySeconds, drainSeconds,
                flushMessages, flushMs, Map.of());
    }

    /** A test with the workload's own producer settings. */
    public TestConfig(String sut, int nodes, String workload, List<String> nemesis, int timeLimitSeconds, double rate,
                      int concurrency, int keys, String acks, boolean idempotence, int minIsr, int replicationFactor,
                      Boolean unclean, String subVia, int nemesisIntervalSeconds, long seed, int recoverySeconds,
                      int drainSeconds, Long flushMessages, Long flushMs, Map<String, String> brokerProperties) {
        this(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks, idempotence, minIsr,
                replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed, recoverySeconds, drainSeconds,
                flushMessages, flushMs, brokerProperties, Map.of());
    }

    /** A test whose faults never overlap (the random mix as it was before --fault-overlap). */
    public TestConfig(String sut, int nodes, String workload, List<String> nemesis, int timeLimitSeconds, double rate,
                      int concurrency, int keys, String acks, boolean idempotence, int minIsr, int replicationFactor,
                      Boolean unclean, String subVia, int nemesisIntervalSeconds, long seed, int recoverySeconds,
                      int drainSeconds, Long flushMessages, Long flushMs, Map<String, String> brokerProperties,
                      Map<String, String> producerProperties) {
        this(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks, idempotence, minIsr,
                replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed, recoverySeconds, drainSeconds,
                flushMessages, flushMs, brokerProperties, producerProperties, 0, false, 0);
    }

    public TestConfig {
        nemesis = List.copyOf(nemesis);
        brokerProperties = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(brokerProperties));
        producerProperties = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(producerProperties));
        require(nodes >= 1 && nodes <= 9, "--nodes must be between 1 and 9, got " + nodes);
        require(timeLimitSeconds >= 1, "--time-limit must be at least 1 second");
        require(rate > 0, "--rate must be positive");
        require(concurrency >= 1, "--concurrency must be at least 1");
        require(keys >= 1, "--keys must be at least 1");
        require(List.of("0", "1", "all").contains(acks), "--acks must be 0, 1 or all, got " + acks);
        require(replicationFactor >= 1 && replicationFactor <= nodes,
                "--rf must be between 1 and --nodes (" + nodes + "), got " + replicationFactor);
        require(minIsr >= 1 && minIsr <= replicationFactor,
                "--min-isr must be between 1 and --rf (" + replicationFactor + "), got " + minIsr);
        require(List.of("assign", "subscribe").contains(subVia), "--sub-via must be assign or subscribe, got " + subVia);
        require(!idempotence || "all".equals(acks), "--idempotence true needs --acks all, got --acks " + acks);
        require(nemesisIntervalSeconds >= 1, "--nemesis-interval must be at least 1 second");
        require(faultOverlap >= 0 && faultOverlap <= 1, "--fault-overlap must be between 0 and 1, got " + faultOverlap);
        require(bulkSends >= 0 && bulkSends <= 1, "--bulk-sends must be between 0 and 1, got " + bulkSends);
        var w = Workloads.named(workload);
        var s = Suts.named(sut);
        require(!w.needsTransactions() || s.transactions(), "--workload " + workload + " needs transactions, which "
                + sut + " does not have: use --sut " + Workloads.either(Suts.ALL.stream().filter(Suts.Sut::transactions)
                .map(Suts.Sut::name).toList()));
        require(s.clientLine() == io.faultline.kafkacompat.KafkaClientLine.CURRENT || "queue".equals(workload),
                "--workload " + workload + " runs on kafka-clients " + io.faultline.kafkacompat.KafkaClientLine.CURRENT.clientsVersion()
                        + ", which cannot talk to " + sut + " (brokers before 2.1, KIP-896): use --workload queue");
        require(!idempotence || Suts.hasTransactionalProtocol(sut), sut + " has no idempotent producer (from 0.11, KIP-98): "
                + "use --idempotence false");
        for (var e : brokerProperties.entrySet()) {
            require(e.getKey().matches("[A-Za-z0-9._-]+"), "--broker-prop: bad property name '" + e.getKey() + "'");
            require(!sut.startsWith(Suts.APACHE_KAFKA) || !e.getKey().startsWith("faultline."), TRUNCATION.equals(e.getKey())
                    ? "--truncation is a broker-impl setting: Apache Kafka always truncates by leader epoch (KIP-101, since 0.11)"
                    : e.getKey() + " is a broker-impl setting; Apache Kafka has no such property");
        }
        // broker-impl refuses a seeded bug without the allowance and every node exits at start: say so before any cluster
        for (var e : brokerProperties.entrySet()) {
            String k = e.getKey();
            if (!k.startsWith(SeededBugCatalog.PREFIX) || !"true".equalsIgnoreCase(e.getValue())) continue;
            require("true".equals(brokerProperties.get(SeededBugCatalog.ALLOWED)), k + " is a seeded bug: broker-impl "
                    + "runs it only with " + SeededBugCatalog.ALLOWED + "=true; use --bug "
                    + k.substring(SeededBugCatalog.PREFIX.length()) + ", which sets both");
        }
        for (String k : producerProperties.keySet()) {
            require(k.matches("[A-Za-z0-9._-]+"), "producer property: bad name '" + k + "'");
            require(!CHECKED_PRODUCER_SETTINGS.contains(k), "producer property " + k + " is set by --acks, --idempotence "
                    + "or the workload itself: the checker's allowances follow from those");
        }
        require(producerProperties.isEmpty() || "queue".equals(workload) || NightlyMix.WORKLOAD.equals(workload),
                "producer properties apply to the queue workload only, not --workload " + workload);
        String truncation = brokerProperties.get(TRUNCATION);
        require(truncation == null || List.of("leader-epoch", "high-watermark").contains(truncation),
                "--truncation must be leader-epoch or high-watermark, got " + truncation);
        require(flushMessages == null || flushMessages >= 1, "--flush-messages must be at least 1, got " + flushMessages);
        require(flushMs == null || flushMs >= 0, "--flush-ms must be at least 0, got " + flushMs);
    }

    /** unclean.leader.election.enable as the brokers see it: the stated value, else the system's own default. */
    public boolean uncleanInEffect() {
        return unclean != null ? unclean : Suts.uncleanByDefault(sut);
    }

    /**
     * The broker settings this run leaves to the system's own defaults (not written into its configuration), with the
     * value that default has: what a reader must know besides the stated settings. Empty when every one is stated.
     */
    public Map<String, String> systemDefaults() {
        var m = new java.util.TreeMap<String, String>();
        if (unclean == null) m.put("unclean.leader.election.enable", Boolean.toString(uncleanInEffect()));
        return m;
    }

    /** broker-impl's truncation mode if set: leader-epoch or high-watermark. */
    public java.util.Optional<String> truncation() {
        return java.util.Optional.ofNullable(brokerProperties.get(TRUNCATION));
    }

    /** The same configuration with more broker properties (later keys win). */
    public TestConfig withBrokerProperties(Map<String, String> more) {
        var all = new LinkedHashMap<>(brokerProperties);
        all.putAll(more);
        return new TestConfig(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed,
                recoverySeconds, drainSeconds, flushMessages, flushMs, all, producerProperties, faultOverlap, besides, bulkSends);
    }

    /** The same configuration with more producer settings (later keys win). */
    public TestConfig withProducerProperties(Map<String, String> more) {
        var all = new LinkedHashMap<>(producerProperties);
        all.putAll(more);
        return new TestConfig(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed,
                recoverySeconds, drainSeconds, flushMessages, flushMs, brokerProperties, all, faultOverlap, besides, bulkSends);
    }

    /** The workloads `--workload` accepts. */
    public static final List<String> WORKLOADS = Workloads.NAMES;

    private static void require(boolean ok, String message) {
        if (!ok) throw new IllegalArgumentException(message);
    }

    /** The test's name in the store: what was run, under which fault packages and acks. */
    public String testName() {
        String faults = nemesis.isEmpty() ? "none" : String.join("+", nemesis);
        return Suts.label(sut) + "-" + workload + "-" + faults + "-acks" + acks;
    }

    public TestConfig withSeed(long newSeed) {
        return new TestConfig(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, newSeed,
                recoverySeconds, drainSeconds, flushMessages, flushMs, brokerProperties, producerProperties, faultOverlap, besides, bulkSends);
    }

    /** The same test with the random mix's faults overlapping with this chance (see nemesis.Schedule). */
    public TestConfig withFaultOverlap(double chance) {
        return new TestConfig(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed,
                recoverySeconds, drainSeconds, flushMessages, flushMs, brokerProperties, producerProperties, chance, besides, bulkSends);
    }

    /** The same test with (or without) the offsets registers, topics and compacted topic beside the plain queue. */
    public TestConfig withBesides(boolean on) {
        return new TestConfig(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed,
                recoverySeconds, drainSeconds, flushMessages, flushMs, brokerProperties, producerProperties, faultOverlap, on, bulkSends);
    }

    /** The same test with this share of the queue's send ops carrying 100-400 records each (see QueueOps). */
    public TestConfig withBulkSends(double share) {
        return new TestConfig(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed,
                recoverySeconds, drainSeconds, flushMessages, flushMs, brokerProperties, producerProperties, faultOverlap,
                besides, share);
    }

    /** Bulk sends in effect: asked for and a queue workload that sends records one by one (not the transactional one). */
    public double bulkSendsInEffect() {
        return List.of("queue", NightlyMix.WORKLOAD).contains(workload) ? bulkSends : 0;
    }

    /**
     * Whether the workloads beside the queue run: asked for, the plain queue, on a system whose committed offsets can be
     * read as its consumers read them (OffsetFetch with require_stable: Apache Kafka from 2.5, KIP-447), so the
     * registers are judged by what clients rely on. An older release runs the queue alone, as it always did.
     */
    public boolean besidesInEffect() {
        return besides && "queue".equals(workload) && Suts.clientLine(sut) == io.faultline.kafkacompat.KafkaClientLine.CURRENT
                && Suts.hasStableOffsetFetch(sut);
    }

    /** The same test against another system under test: the same seed, so the same workload and faults. */
    public TestConfig withSut(String otherSut) {
        return new TestConfig(otherSut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed,
                recoverySeconds, drainSeconds, flushMessages, flushMs, brokerProperties, producerProperties, faultOverlap, besides, bulkSends);
    }

    /** The same test with the brokers fsyncing every {@code messages} appends / {@code ms} (null: default). */
    public TestConfig withFlush(Long messages, Long ms) {
        return new TestConfig(sut, nodes, workload, nemesis, timeLimitSeconds, rate, concurrency, keys, acks,
                idempotence, minIsr, replicationFactor, unclean, subVia, nemesisIntervalSeconds, seed,
                recoverySeconds, drainSeconds, messages, ms, brokerProperties, producerProperties, faultOverlap, besides, bulkSends);
    }

    /** test.json's "parameters" object: every field, by its CLI flag name. */
    public Map<String, Object> asMap() {
        var m = new LinkedHashMap<String, Object>();
        m.put("sut", sut);
        m.put("nodes", nodes);
        m.put("workload", workload);
        m.put("nemesis", nemesis);
        m.put("time-limit", timeLimitSeconds);
        m.put("rate", rate);
        m.put("concurrency", concurrency);
        m.put("keys", keys);
        m.put("acks", acks);
        m.put("idempotence", idempotence);
        m.put("min-isr", minIsr);
        m.put("rf", replicationFactor);
        // stated only when the run set it; otherwise the system's own default, named as such
        if (unclean != null) m.put("unclean", unclean);
        if (!systemDefaults().isEmpty()) m.put(SYSTEM_DEFAULTS, systemDefaults());
        m.put("sub-via", subVia);
        m.put("nemesis-interval", nemesisIntervalSeconds);
        if (faultOverlap > 0) m.put("fault-overlap", faultOverlap); // a run stored before overlaps has none: 0
        if (besides) m.put("besides", true); // nor one stored before the queue had company
        if (bulkSends > 0) m.put("bulk-sends", bulkSends); // nor one stored before bulk sends
        m.put("seed", seed);
        m.put("recovery", recoverySeconds);
        m.put("drain", drainSeconds);
        // only when set, so test.json of a run with default flushing looks as it always did
        if (flushMessages != null) m.put("flush-messages", flushMessages);
        if (flushMs != null) m.put("flush-ms", flushMs);
        if (!brokerProperties.isEmpty()) m.put("broker-props", brokerProperties);
        if (!producerProperties.isEmpty()) m.put("producer-props", producerProperties);
        return m;
    }

    @SuppressWarnings("unchecked")
    public static TestConfig fromMap(Map<String, Object> m) {
        return new TestConfig(
                (String) m.get("sut"),
                ((Number) m.get("nodes")).intValue(),
                (String) m.get("workload"),
                (List<String>) m.get("nemesis"),
                ((Number) m.get("time-limit")).intValue(),
                ((Number) m.get("rate")).doubleValue(),
                ((Number) m.get("concurrency")).intValue(),
                ((Number) m.get("keys")).intValue(),
                String.valueOf(m.get("acks")),
                (Boolean) m.get("idempotence"),
                ((Number) m.get("min-isr")).intValue(),
                ((Number) m.get("rf")).intValue(),
                (Boolean) m.get("unclean"),
                (String) m.get("sub-via"),
                ((Number) m.get("nemesis-interval")).intValue(),
                ((Number) m.get("seed")).longValue(),
                ((Number) m.getOrDefault("recovery", 10)).intValue(),
                ((Number) m.getOrDefault("drain", 30)).intValue(),
                m.get("flush-messages") == null ? null : ((Number) m.get("flush-messages")).longValue(),
                m.get("flush-ms") == null ? null : ((Number) m.get("flush-ms")).longValue(),
                (Map<String, String>) m.getOrDefault("broker-props", Map.of()),
                (Map<String, String>) m.getOrDefault("producer-props", Map.of()),
                ((Number) m.getOrDefault("fault-overlap", 0)).doubleValue(),
                Boolean.TRUE.equals(m.get("besides")),
                ((Number) m.getOrDefault("bulk-sends", 0)).doubleValue());
    }
}
