package io.faultline.harness;

import picocli.CommandLine.Option;

import java.util.List;

/** The flags of one test, shared by `test` and `campaign`. Defaults give a meaningful 60 s run on 5 nodes. */
public final class TestOptions {
    @Option(names = "--sut", description = "System under test: apache-kafka or broker-impl (default: ${DEFAULT-VALUE})")
    String sut = "apache-kafka";

    @Option(names = "--nodes", description = "Cluster size (default: ${DEFAULT-VALUE})")
    int nodes = 5;

    @Option(names = "--workload", description = "Workload: queue (default: ${DEFAULT-VALUE})")
    String workload = "queue";

    @Option(names = "--nemesis", split = ",", description = "Fault packages, comma separated, or none"
            + " (partition, kill, pause, stop, restart, clock, disk; default: ${DEFAULT-VALUE})")
    List<String> nemesis = List.of("partition", "kill");

    @Option(names = "--time-limit", description = "Seconds of workload and faults (default: ${DEFAULT-VALUE})")
    int timeLimit = 60;

    @Option(names = "--rate", description = "Client operations per second, all clients together (default: ${DEFAULT-VALUE})")
    double rate = 50;

    @Option(names = "--concurrency", description = "Client threads (default: ${DEFAULT-VALUE})")
    int concurrency = 6;

    @Option(names = "--keys", description = "Keys in play at once; each key is one partition (default: ${DEFAULT-VALUE})")
    int keys = 4;

    @Option(names = "--acks", description = "Producer acks: 0, 1 or all (default: ${DEFAULT-VALUE})")
    String acks = "all";

    @Option(names = "--idempotence", arity = "1", description = "Idempotent producer: true/false (default: true with --acks all)")
    Boolean idempotence;

    @Option(names = "--min-isr", description = "min.insync.replicas (default: 2, at most --rf)")
    Integer minIsr;

    @Option(names = "--rf", description = "Replication factor (default: 3, at most --nodes)")
    Integer rf;

    @Option(names = "--unclean", arity = "1", description = "unclean.leader.election.enable: true/false (default: ${DEFAULT-VALUE})")
    boolean unclean = false;

    @Option(names = "--sub-via", description = "Consumers use assign or subscribe (default: ${DEFAULT-VALUE})")
    String subVia = "assign";

    @Option(names = "--nemesis-interval", description = "Mean seconds between fault operations (default: ${DEFAULT-VALUE})")
    int nemesisInterval = 10;

    @Option(names = "--seed", description = "Seed of every random choice (default: random, printed first)")
    Long seed;

    @Option(names = "--recovery", description = "Seconds to wait after the final heal (default: ${DEFAULT-VALUE})")
    int recovery = 10;

    @Option(names = "--drain", description = "Upper bound in seconds of the final drain (default: ${DEFAULT-VALUE})")
    int drain = 30;

    /** The validated configuration; throws IllegalArgumentException with a one-line reason. */
    TestConfig toConfig() {
        List<String> faults = nemesis.size() == 1 && "none".equals(nemesis.get(0)) ? List.of() : nemesis;
        for (String f : faults) {
            if (!io.faultline.nemesis.FaultPackages.NAMES.contains(f)) {
                throw new IllegalArgumentException("unknown --nemesis package '" + f + "'; known: none, "
                        + String.join(", ", io.faultline.nemesis.FaultPackages.NAMES));
            }
        }
        long s = seed != null ? seed : new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;
        // Kafka's idempotent producer needs acks=all: on by default there, off otherwise, never silently dropped.
        boolean idempotent = idempotence != null ? idempotence : "all".equals(acks);
        if (idempotent && !"all".equals(acks)) {
            throw new IllegalArgumentException("--idempotence true needs --acks all (Kafka's rule), got --acks " + acks);
        }
        // Unset replication flags follow the cluster size; explicit ones are validated as given.
        int effectiveRf = rf != null ? rf : Math.min(3, nodes);
        int effectiveMinIsr = minIsr != null ? minIsr : Math.min(2, effectiveRf);
        return new TestConfig(sut, nodes, workload, faults, timeLimit, rate, concurrency, keys, acks, idempotent,
                effectiveMinIsr, effectiveRf, unclean, subVia, nemesisInterval, s, recovery, drain);
    }
}
