package io.faultline.broker.config;

import io.faultline.broker.controller.QuorumVoters;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The node's part in the cluster, with Kafka's names.
 *
 * @param roles                    process.roles; every node runs a broker (combined mode), voters also a controller
 * @param voters                   controller.quorum.voters (id → controller listener address); empty when not set:
 *                                 the quorum is this node alone (the single-node configs of before)
 * @param brokerHeartbeatIntervalMs broker.heartbeat.interval.ms
 * @param brokerSessionTimeoutMs   broker.session.timeout.ms
 * @param defaultReplicationFactor default.replication.factor
 * @param minInsyncReplicas        min.insync.replicas (cluster default; topics may override)
 * @param uncleanLeaderElection    unclean.leader.election.enable (cluster default; topics may override)
 * @param replicaLagTimeMaxMs      replica.lag.time.max.ms
 * @param quorumListeners          faultline.quorum.listeners (id@host:port of the controller port, as for voters):
 *                                 the nodes that follow the metadata log without voting. Not a Kafka name: Ratis
 *                                 needs every member of the group up front, where KRaft observers just fetch.
 * @param quorumElectionTimeoutMs  controller.quorum.election.timeout.ms (Raft elections wait between it and twice
 *                                 it), or -1 for the controller's default
 * @param autoLeaderRebalance      auto.leader.rebalance.enable (default true, as Kafka)
 * @param leaderImbalanceCheckIntervalMs     leader.imbalance.check.interval.seconds (default 300), in ms
 * @param leaderImbalancePerBrokerPercentage leader.imbalance.per.broker.percentage (default 10)
 */
public record ClusterConfig(Set<ProcessRole> roles, Map<Integer, InetSocketAddress> voters,
                            Map<Integer, InetSocketAddress> quorumListeners,
                            int brokerHeartbeatIntervalMs, int brokerSessionTimeoutMs, short defaultReplicationFactor,
                            int minInsyncReplicas, boolean uncleanLeaderElection, long replicaLagTimeMaxMs,
                            int quorumElectionTimeoutMs, boolean autoLeaderRebalance,
                            long leaderImbalanceCheckIntervalMs, int leaderImbalancePerBrokerPercentage) {

    public enum ProcessRole { BROKER, CONTROLLER }

    public ClusterConfig {
        roles = Set.copyOf(roles);
        voters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(voters)); // keeps the given order
        quorumListeners = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(quorumListeners));
    }

    public boolean isVoter(int nodeId) {
        return voters.isEmpty() || voters.containsKey(nodeId);
    }

    /** Without controller.quorum.voters the node is a one-voter quorum of itself. */
    public boolean standalone() {
        return voters.isEmpty();
    }

    static ClusterConfig parse(PropertyReader p, int nodeId, ListenerConfig listeners, List<String> problems) {
        Map<Integer, InetSocketAddress> voters = Map.of();
        String v = p.get("controller.quorum.voters", null);
        if (v != null && !v.isBlank()) {
            try {
                voters = QuorumVoters.parse(v);
            } catch (IllegalArgumentException e) {
                problems.add("controller.quorum.voters: " + e.getMessage());
            }
        }
        Map<Integer, InetSocketAddress> quorumListeners = Map.of();
        String ql = p.get("faultline.quorum.listeners", null);
        if (ql != null && !ql.isBlank()) {
            try {
                quorumListeners = QuorumVoters.parse(ql);
            } catch (IllegalArgumentException e) {
                problems.add("faultline.quorum.listeners: " + e.getMessage());
            }
        }
        for (Integer id : quorumListeners.keySet()) {
            if (voters.containsKey(id)) problems.add("faultline.quorum.listeners: node " + id + " is also a voter");
        }
        Set<ProcessRole> roles = EnumSet.noneOf(ProcessRole.class);
        String r = p.get("process.roles", null);
        if (r == null) {
            roles.add(ProcessRole.BROKER);
            if (voters.isEmpty() || voters.containsKey(nodeId)) roles.add(ProcessRole.CONTROLLER);
        } else {
            for (String role : r.split(",")) {
                switch (role.trim().toLowerCase()) {
                    case "broker" -> roles.add(ProcessRole.BROKER);
                    case "controller" -> roles.add(ProcessRole.CONTROLLER);
                    default -> problems.add("process.roles: unknown role '" + role.trim() + "' (broker, controller)");
                }
            }
            if (!roles.contains(ProcessRole.BROKER)) {
                problems.add("process.roles: '" + r + "' has no broker role; controller-only nodes are not supported");
            }
        }
        if (!voters.isEmpty()) {
            boolean voter = voters.containsKey(nodeId);
            if (voter && !roles.contains(ProcessRole.CONTROLLER)) {
                problems.add("process.roles: node " + nodeId + " is in controller.quorum.voters but has no controller role");
            }
            if (!voter && !quorumListeners.containsKey(nodeId)) {
                problems.add("faultline.quorum.listeners: node " + nodeId + " is not a voter, so it must be listed here "
                        + "to follow the metadata log");
            }
            if (!voter && roles.contains(ProcessRole.CONTROLLER)) {
                problems.add("process.roles: node " + nodeId + " has the controller role but is not in "
                        + "controller.quorum.voters " + voters.keySet());
            }
            if (listeners != null && listeners.controllerNames().isEmpty()) {
                problems.add("controller.listener.names: required with controller.quorum.voters (brokers reach the "
                        + "controller through it)");
            }
            if (voter && listeners != null && listeners.controllerListener().isEmpty()) {
                problems.add("listeners: voter " + nodeId + " binds no controller listener " + listeners.controllerNames());
            }
        }
        int heartbeat = p.getInt("broker.heartbeat.interval.ms", 2000, 1);
        int session = p.getInt("broker.session.timeout.ms", 9000, 1);
        if (session <= heartbeat) {
            problems.add("broker.session.timeout.ms: " + session + " must exceed broker.heartbeat.interval.ms " + heartbeat);
        }
        int rf = p.getInt("default.replication.factor", 1, 1);
        if (rf > Short.MAX_VALUE) problems.add("default.replication.factor: " + rf + " is too large");
        int minIsr = p.getInt("min.insync.replicas", 1, 1);
        boolean unclean = p.getBoolean("unclean.leader.election.enable", false);
        long lag = p.getLong("replica.lag.time.max.ms", 30_000, 1);
        int election = p.getInt("controller.quorum.election.timeout.ms", -1, 1);
        boolean rebalance = p.getBoolean("auto.leader.rebalance.enable", true);
        long imbalanceCheckSeconds = p.getLong("leader.imbalance.check.interval.seconds", 300, 1);
        int imbalancePercentage = p.getInt("leader.imbalance.per.broker.percentage", 10, 0);
        return new ClusterConfig(roles, voters, quorumListeners, heartbeat, session, (short) Math.min(rf, Short.MAX_VALUE), minIsr,
                unclean, lag, election, rebalance, imbalanceCheckSeconds * 1000, imbalancePercentage);
    }
}
