package io.faultline.broker.controller;

import io.faultline.broker.common.Time;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * How to start one node's controller.
 *
 * <p>The Raft (Ratis) addresses are separate from the Kafka controller listener: {@code raftVoters} lists the
 * voters' Raft addresses, {@code raftListeners} those of the non-voting nodes (Ratis LISTENER peers, which
 * receive the committed log but never vote or lead). A node is a voter iff its id is in {@code raftVoters},
 * otherwise it must be in {@code raftListeners}. Every node must be given the same two maps. By convention
 * (see {@link #fromQuorumVoters}) the Raft port is the controller port from {@code controller.quorum.voters}
 * plus {@link QuorumVoters#DEFAULT_RAFT_PORT_OFFSET}.
 *
 * @param nodeId        this node's id (node.id)
 * @param raftVoters    voter id → Raft address (non-empty)
 * @param raftListeners listener (non-voter) id → Raft address (may be empty)
 * @param metadataDir   where Ratis keeps its log and the image snapshots (created if absent)
 * @param time          the clock for broker sessions
 * @param settings      controller and quorum tunables
 * @param scheduler     runs the periodic session check; null = {@code time.scheduler()} (the broker's seam)
 */
public record ControllerNodeConfig(int nodeId, Map<Integer, InetSocketAddress> raftVoters,
                                   Map<Integer, InetSocketAddress> raftListeners, Path metadataDir, Time time,
                                   ControllerSettings settings, ScheduledExecutorService scheduler) {
    public ControllerNodeConfig {
        raftVoters = Map.copyOf(raftVoters);
        raftListeners = Map.copyOf(raftListeners);
        Objects.requireNonNull(metadataDir, "metadataDir");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(settings, "settings");
        if (raftVoters.isEmpty()) throw new IllegalArgumentException("no voters");
        for (Integer id : raftListeners.keySet()) {
            if (raftVoters.containsKey(id)) throw new IllegalArgumentException("node " + id + " is both voter and listener");
        }
        if (!raftVoters.containsKey(nodeId) && !raftListeners.containsKey(nodeId)) {
            throw new IllegalArgumentException("node " + nodeId + " is neither a voter nor a listener");
        }
    }

    public boolean isVoter() {
        return raftVoters.containsKey(nodeId);
    }

    /**
     * Builds a config from Kafka-style settings: {@code controller.quorum.voters} gives the voters' controller
     * listener addresses; {@code listenerControllerAddresses} gives those of the non-voting nodes. Raft ports are
     * the controller ports + {@link QuorumVoters#DEFAULT_RAFT_PORT_OFFSET}.
     */
    public static ControllerNodeConfig fromQuorumVoters(int nodeId, String quorumVoters,
                                                        Map<Integer, InetSocketAddress> listenerControllerAddresses,
                                                        Path metadataDir, Time time, ControllerSettings settings,
                                                        ScheduledExecutorService scheduler) {
        int off = QuorumVoters.DEFAULT_RAFT_PORT_OFFSET;
        return new ControllerNodeConfig(nodeId, QuorumVoters.shiftPorts(QuorumVoters.parse(quorumVoters), off),
                QuorumVoters.shiftPorts(listenerControllerAddresses, off), metadataDir, time, settings, scheduler);
    }
}
