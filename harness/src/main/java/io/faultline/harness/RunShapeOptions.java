package io.faultline.harness;

import io.faultline.nemesis.FaultPackages;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * The flags that shape a run but are not the safety settings a campaign varies: the system, cluster size,
 * load, timing and seed. Shared by `test` and `campaign`.
 */
final class RunShapeOptions {
    @Option(names = "--sut", description = "System under test: apache-kafka (4.4.0), apache-kafka:VERSION (any release on Maven Central, e.g. 0.11.0.3) or broker-impl; compare and campaign take several, comma separated (default: ${DEFAULT-VALUE})")
    String sut = "apache-kafka";

    @Option(names = "--metadata", description = "Apache Kafka only: zk or kraft (default: kraft from 3.3, zk before)")
    String metadata;

    @Option(names = "--nodes", description = "Cluster size (default: ${DEFAULT-VALUE})")
    int nodes = 5;

    @Option(names = "--workload", description = "Workload: queue, offsets, offsets-stable or txn-queue (default: ${DEFAULT-VALUE})")
    String workload = "queue";

    @Option(names = "--time-limit", description = "Seconds of workload and faults (default: ${DEFAULT-VALUE})")
    int timeLimit = 60;

    @Option(names = "--rate", description = "Client operations per second, all clients together (default: ${DEFAULT-VALUE})")
    double rate = 250;

    @Option(names = "--concurrency", description = "Client threads (default: ${DEFAULT-VALUE})")
    int concurrency = 10;

    @Option(names = "--keys", description = "Keys in play at once; each key is one partition (default: ${DEFAULT-VALUE})")
    int keys = 4;

    @Option(names = "--rf", description = "Replication factor (default: 3, at most --nodes)")
    Integer rf;

    @Option(names = "--sub-via", description = "Consumers use assign or subscribe (default: ${DEFAULT-VALUE})")
    String subVia = "assign";

    @Option(names = "--nemesis-interval", description = "Seconds a fault holds, and of the healthy window after its heal, on average (default: ${DEFAULT-VALUE})")
    int nemesisInterval = 5;

    @Option(names = "--besides", arity = "1", description = "queue workload: run offsets registers, scratch topics and a"
            + " compacted topic beside the queue on the same clients, each with its own check (kafka-clients 4.4 systems"
            + " only; default: ${DEFAULT-VALUE})")
    boolean besides = true;

    @Option(names = "--bulk-sends", description = "queue workloads: the share of send ops that carry 100-400 records"
            + " to one key, bursts of traffic beside the ops of a few records; 0 for none (default: ${DEFAULT-VALUE})")
    double bulkSends = DEFAULT_BULK_SENDS;

    /** The share of the queues' send ops that are bulk sends unless --bulk-sends says otherwise (QueueOps). */
    static final double DEFAULT_BULK_SENDS = 0.02;

    @Option(names = "--fault-overlap", description = "random mix: the chance that a fault starts while the one before"
            + " still holds (a partition with a kill inside it, as Jepsen's mixed packages do); 0 for one fault at a time"
            + " (default: ${DEFAULT-VALUE})")
    double faultOverlap = 0.5;

    @Option(names = "--recovery", description = "Seconds to wait at most after the final heal; the wait ends once every broker serves and every ISR is full (default: ${DEFAULT-VALUE})")
    int recovery = 10;

    @Option(names = "--drain", description = "Upper bound in seconds of the final drain (default: ${DEFAULT-VALUE})")
    int drain = 30;

    @Option(names = "--truncation", description = "broker-impl only: how a new follower truncates, leader-epoch (default) or high-watermark (before KIP-101; loses data)")
    String truncation;

    @Option(names = "--broker-prop", description = "A further server property of every node, key=value (repeatable; faultline.* keys are broker-impl's)")
    java.util.Map<String, String> brokerProps = new java.util.LinkedHashMap<>();

    @Option(names = "--seed", description = "Seed of every random choice (default: random, printed first)")
    Long seed;

    /** The systems named by --sut (comma separated), validated, without repeats. */
    List<String> suts() {
        List<String> out = new java.util.ArrayList<>();
        for (String s : sut.split(",")) {
            String name = Suts.withMetadata(s.strip(), metadata);
            Suts.named(name); // an unknown name: one line listing the known ones
            if (out.contains(name)) throw new IllegalArgumentException("--sut names " + name + " twice");
            out.add(name);
        }
        return out;
    }

    long seedOrRandom() {
        return seed != null ? seed : new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;
    }

    /** An unset --rf follows the cluster size; an explicit one is validated as given. */
    int replicationFactor() {
        return rf != null ? rf : Math.min(3, nodes);
    }

    /** Fault packages named by one --nemesis value ("none", or packages joined by the given separator). */
    static List<String> faultPackages(List<String> names) {
        List<String> faults = names.size() == 1 && "none".equals(names.get(0)) ? List.of() : List.copyOf(names);
        for (String f : faults) {
            if (!FaultPackages.NAMES.contains(f) && !FaultPackages.PREPARED.contains(f)) {
                throw new IllegalArgumentException("unknown --nemesis package '" + f + "'; known: none, "
                        + String.join(", ", FaultPackages.NAMES) + ", " + String.join(", ", FaultPackages.PREPARED));
            }
        }
        return faults;
    }

    /** One test with these shape flags and the given safety settings. */
    TestConfig config(List<String> faults, String acks, boolean idempotent, int minIsr, Boolean unclean, long runSeed) {
        if (suts().size() > 1 && brokerProperties().keySet().stream().anyMatch(k -> k.startsWith("faultline."))) {
            throw new IllegalArgumentException("--truncation and faultline.* broker properties are broker-impl settings;"
                    + " Apache Kafka has none: run one --sut at a time with them");
        }
        return new TestConfig(suts().get(0), nodes, workload, faults, timeLimit, rate, concurrency, keys, acks, idempotent,
                minIsr, replicationFactor(), unclean, subVia, nemesisInterval, runSeed, recovery, drain, brokerProperties())
                .withFaultOverlap(faultOverlap).withBesides(besides).withBulkSends(bulkSends);
    }

    /** --broker-prop entries, then --truncation as broker-impl's property. */
    java.util.Map<String, String> brokerProperties() {
        var all = new java.util.LinkedHashMap<>(brokerProps);
        if (truncation != null) all.put(TestConfig.TRUNCATION, truncation);
        return all;
    }
}
