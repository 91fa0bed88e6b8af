package io.faultline.harness;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;

/** The flags of one test. Defaults give a meaningful 60 s run on 5 nodes. */
public final class TestOptions {
    @Mixin
    RunShapeOptions shape = new RunShapeOptions();

    @Option(names = "--nemesis", split = ",", description = "Fault packages, comma separated, or none"
            + " (partition, kill, pause, stop, restart, clock, disk, link; power, power-one, power-all: power loss on lazyfs;"
            + " default: ${DEFAULT-VALUE})")
    List<String> nemesis = List.of("partition", "kill");

    @Option(names = "--acks", description = "Producer acks: 0, 1 or all (default: ${DEFAULT-VALUE})")
    String acks = "all";

    @Option(names = "--idempotence", arity = "1", description = "Idempotent producer: true/false (default: true with --acks all)")
    Boolean idempotence;

    @Option(names = "--min-isr", description = "min.insync.replicas (default: 2, at most --rf)")
    Integer minIsr;

    @Option(names = "--unclean", arity = "1", description = "unclean.leader.election.enable: true/false (default: the"
            + " system's own, which the run page names as such: true for Apache Kafka before 0.11, false from 0.11 and for broker-impl)")
    Boolean unclean;

    @Option(names = "--flush-messages", description = "Brokers' log.flush.interval.messages: fsync after this many"
            + " appended messages, 1 = every append (default: the system's, no fsync per append)")
    Long flushMessages;

    @Option(names = "--flush-ms", description = "Brokers' log.flush.interval.ms (default: the system's)")
    Long flushMs;

    @Option(names = "--bug", description = "broker-impl only: switch on a seeded bug (repeatable; sets faultline.bug.NAME"
            + " and faultline.bugs.allowed; see: faultline bugs --help)")
    List<String> bugs = List.of();

    /** The validated configuration; throws IllegalArgumentException with a one-line reason. */
    TestConfig toConfig() {
        if (shape.suts().size() > 1) {
            throw new IllegalArgumentException("test runs one system; for several use: faultline compare --sut " + shape.sut);
        }
        return toConfigFor(shape.suts().get(0));
    }

    /** The validated configuration on this one system (compare names several with --sut). */
    TestConfig toConfigFor(String sutName) {
        List<String> faults = RunShapeOptions.faultPackages(nemesis);
        // Kafka's idempotent producer needs acks=all: on by default there, off otherwise, never silently dropped.
        // Releases before 0.11 have no idempotent producer (KIP-98): off by default there.
        boolean idempotent = idempotence != null ? idempotence : "all".equals(acks) && Suts.hasTransactionalProtocol(sutName);
        if (idempotent && !"all".equals(acks)) {
            throw new IllegalArgumentException("--idempotence true needs --acks all (Kafka's rule), got --acks " + acks);
        }
        int effectiveMinIsr = minIsr != null ? minIsr : Math.min(2, shape.replicationFactor());
        if (!bugs.isEmpty() && !"broker-impl".equals(sutName)) {
            throw new IllegalArgumentException("--bug switches on a seeded bug of broker-impl; " + sutName
                    + " has none: use --sut broker-impl");
        }
        // a bug's own broker properties (e.g. zombie-not-fenced's transaction.version=1), unless --broker-prop sets them
        var bugProperties = new java.util.LinkedHashMap<String, String>();
        for (String b : bugs) {
            SeededBugCatalog.named(b).brokerProperties().forEach((k, v) -> {
                if (!shape.brokerProperties().containsKey(k)) bugProperties.put(k, v);
            });
        }
        bugProperties.putAll(SeededBugCatalog.properties(bugs));
        return shape.config(faults, acks, idempotent, effectiveMinIsr, unclean, shape.seedOrRandom()).withSut(sutName)
                .withBrokerProperties(bugProperties).withFlush(flushMessages, flushMs);
    }
}
