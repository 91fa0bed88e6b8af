package io.faultline.docker.sut;

import io.faultline.docker.NodeAddress;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * server.properties per release family. Settings a release does not know are left out rather than written (it would
 * only warn), and nothing is written that the test did not set, so each release keeps its own defaults otherwise.
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

    static String kraftMode(KafkaVersion v, KafkaSettings settings, NodeAddress self, List<NodeAddress> all,
                            int controllerPort, int quorumSize, String logDir) {
        var sb = new StringBuilder("# written by Faultline for ").append(self.name()).append(", Apache Kafka ")
                .append(v).append(" in KRaft mode\n");
        String voters = all.stream().filter(a -> a.index() <= quorumSize)
                .map(a -> a.index() + "@" + a.ip() + ":" + controllerPort).collect(Collectors.joining(","));
        boolean controller = self.index() <= quorumSize;
        sb.append("node.id=").append(self.index()).append('\n');
        sb.append("process.roles=").append(controller ? "broker,controller" : "broker").append('\n');
        sb.append("controller.quorum.voters=").append(voters).append('\n');
        sb.append("listeners=PLAINTEXT://0.0.0.0:").append(KafkaProtocolSut.PORT)
                .append(controller ? ",CONTROLLER://0.0.0.0:" + controllerPort : "").append('\n');
        sb.append("advertised.listeners=PLAINTEXT://").append(self.ip()).append(':').append(KafkaProtocolSut.PORT).append('\n');
        sb.append("controller.listener.names=CONTROLLER\n");
        sb.append("listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n");
        sb.append("inter.broker.listener.name=PLAINTEXT\n");
        sb.append("log.dirs=").append(logDir).append('\n');
        sb.append("num.partitions=1\n");
        settings.brokerProperties(all.size()).forEach((k, val) -> sb.append(k).append('=').append(val).append('\n'));
        return sb.toString();
    }

    static String zooKeeperMode(KafkaVersion v, KafkaSettings settings, NodeAddress self, List<NodeAddress> all,
                                int zkPort, int ensembleSize, String logDir) {
        var sb = new StringBuilder("# written by Faultline for ").append(self.name()).append(", Apache Kafka ")
                .append(v).append(" in ZooKeeper mode\n");
        sb.append("broker.id=").append(self.index()).append('\n');
        sb.append("zookeeper.connect=").append(all.stream().filter(a -> a.index() <= ensembleSize)
                .map(a -> a.ip() + ":" + zkPort).collect(Collectors.joining(","))).append('\n');
        sb.append("zookeeper.session.timeout.ms=").append(ZOOKEEPER_SESSION_MS).append('\n');
        // All nodes start together: a broker must wait for the ensemble to elect its leader (default 6 s, then exit).
        sb.append("zookeeper.connection.timeout.ms=60000\n");
        sb.append("listeners=PLAINTEXT://0.0.0.0:").append(KafkaProtocolSut.PORT).append('\n');
        sb.append("advertised.listeners=PLAINTEXT://").append(self.ip()).append(':').append(KafkaProtocolSut.PORT).append('\n');
        sb.append("log.dirs=").append(logDir).append('\n');
        sb.append("num.partitions=1\n");
        brokerProperties(v, settings, all.size()).forEach((k, val) -> sb.append(k).append('=').append(val).append('\n'));
        return sb.toString();
    }

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

    /** zookeeper.properties of an ensemble member: fast ticks (sessions of 1-10 s), the first nodes as servers. */
    static String zooKeeper(List<NodeAddress> all, int ensembleSize, int zkPort) {
        var sb = new StringBuilder("# written by Faultline: the ZooKeeper ensemble on the first nodes\n");
        sb.append("tickTime=500\ninitLimit=20\nsyncLimit=6\n");
        sb.append("dataDir=/data/zookeeper\n");
        sb.append("clientPort=").append(zkPort).append('\n');
        sb.append("maxClientCnxns=0\n");
        sb.append("admin.enableServer=false\n");
        sb.append("4lw.commands.whitelist=*\n");
        for (NodeAddress a : all) {
            if (a.index() <= ensembleSize) sb.append("server.").append(a.index()).append('=').append(a.ip()).append(":2888:3888\n");
        }
        return sb.toString();
    }
}
