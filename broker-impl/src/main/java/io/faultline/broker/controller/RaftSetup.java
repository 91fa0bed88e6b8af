package io.faultline.broker.controller;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Turns a {@link ControllerNodeConfig} into Ratis' group, peers and properties. */
final class RaftSetup {
    /** One fixed group: the cluster's metadata log. */
    static final RaftGroupId GROUP_ID =
            RaftGroupId.valueOf(UUID.nameUUIDFromBytes("faultline-metadata".getBytes(StandardCharsets.UTF_8)));

    /** Twice the largest batch the controller writes ({@link ControllerLogic#MAX_BATCH_BYTES}). */
    static final int APPENDER_BUFFER_BYTES = 2 * ControllerLogic.MAX_BATCH_BYTES;

    private RaftSetup() { }

    static RaftPeerId peerId(int nodeId) {
        return RaftPeerId.valueOf(Integer.toString(nodeId));
    }

    /** The node id of a Raft peer id, or -1 when it is not one of ours. */
    static int nodeId(RaftPeerId peer) {
        if (peer == null) return -1;
        try {
            return Integer.parseInt(peer.toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static RaftGroup group(ControllerNodeConfig cfg) {
        List<RaftPeer> peers = new ArrayList<>();
        addPeers(peers, cfg.raftVoters(), RaftPeerRole.FOLLOWER);
        addPeers(peers, cfg.raftListeners(), RaftPeerRole.LISTENER);
        return RaftGroup.valueOf(GROUP_ID, peers);
    }

    private static void addPeers(List<RaftPeer> out, Map<Integer, InetSocketAddress> nodes, RaftPeerRole role) {
        nodes.forEach((id, a) -> out.add(RaftPeer.newBuilder().setId(peerId(id))
                .setAddress(a.getHostString() + ":" + a.getPort()).setStartupRole(role).build()));
    }

    static RaftProperties properties(ControllerNodeConfig cfg) {
        ControllerSettings s = cfg.settings();
        InetSocketAddress self = cfg.isVoter() ? cfg.raftVoters().get(cfg.nodeId()) : cfg.raftListeners().get(cfg.nodeId());
        RaftProperties p = new RaftProperties();
        // Netty, with every vote made durable before it is sent or granted (Ratis never fsyncs raft-meta's directory).
        RaftConfigKeys.Rpc.setType(p, new DurableVoteRpc());
        NettyConfigKeys.Server.setPort(p, self.getPort());
        // Bind to the given address when it is loopback (tests); otherwise on every interface (containers,
        // where the advertised name may resolve differently from inside).
        if (isLoopback(self.getHostString())) NettyConfigKeys.Server.setHost(p, self.getHostString());
        RaftServerConfigKeys.setStorageDir(p, List.of(cfg.metadataDir().toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(s.electionTimeoutMinMs(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(s.electionTimeoutMaxMs(), TimeUnit.MILLISECONDS));
        // A leader cut off from the majority steps down soon, so brokers stop waiting on it and find the new one.
        RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(p,
                TimeDuration.valueOf(2L * s.electionTimeoutMaxMs(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, s.snapshotThreshold());
        // After each snapshot, drop the closed log segments it covers (a lagging peer then gets the snapshot).
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(Integer.MAX_VALUE, s.snapshotThreshold()));
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(s.raftSegmentBytes()));
        // A log entry larger than the appender's buffer can never be sent to a follower, so the buffer must hold
        // the largest batch the controller writes with room to spare; Ratis needs the write buffer >= it + 8.
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(APPENDER_BUFFER_BYTES));
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(APPENDER_BUFFER_BYTES + (64 << 10)));
        return p;
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
