package io.faultline.docker.sut;


import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a release family knows of the run's broker settings (the node files themselves are the bundled descriptors'
 * templates, suts/apache-kafka and suts/apache-kafka-zk). Settings a release does not know are left out rather than
 * written (it would only warn), and nothing is written that the test did not set, so each release keeps its own
 * defaults otherwise.
 */
final class KafkaConfigTemplates {
    private KafkaConfigTemplates() {}

    /** KRaft-only settings: a ZooKeeper-mode broker has no controller quorum or broker heartbeats. */
    static final Set<String> KRAFT_ONLY = Set.of("broker.session.timeout.ms", "broker.heartbeat.interval.ms",
            "controller.quorum.election.timeout.ms", "controller.quorum.fetch.timeout.ms",
            "controller.quorum.election.backoff.max.ms");

    /** Transactions and the delayed first rebalance arrived in 0.11 (KIP-98, KIP-134). */
    static final Set<String> SINCE_0_11 = Set.of("transaction.state.log.replication.factor", "transaction.state.log.min.isr",
            "group.initial.rebalance.delay.ms");

    /**
     * The ZooKeeper session of a broker: the releases' own default before 2.5 (6 s). It is ZooKeeper mode's failure
     * detector: a broker silent this long is dropped from the live brokers and the ISRs.
     */
    static final int ZOOKEEPER_SESSION_MS = 6000;

    /** The settings' broker properties that a ZooKeeper-mode broker of this release knows. */
    static Map<String, String> brokerProperties(KafkaVersion v, KafkaSettings settings, int clusterSize) {
        var out = new LinkedHashMap<String, String>();
        settings.brokerProperties(clusterSize).forEach((k, val) -> {
            if (KRAFT_ONLY.contains(k) && !settings.extra().containsKey(k)) return;
            if (SINCE_0_11.contains(k) && !v.atLeast("0.11") && !settings.extra().containsKey(k)) return;
            out.put(k, val);
        });
        return out;
    }
}
