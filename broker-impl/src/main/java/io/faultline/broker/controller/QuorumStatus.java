package io.faultline.broker.controller;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.PartitionData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.ReplicaState;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * DescribeQuorum (kafka-metadata-quorum describe --status / --replication) from the Raft leader's own view of the
 * Ratis group: leader id, term as the epoch, commit index as the high watermark; voters are the group's peers,
 * observers its listeners. Log end offsets are Ratis log indexes: the leader's last entry, and for the others the
 * match index the leader tracks; last fetch is the leader's wall clock minus the time since that peer's last reply.
 * Ratis tracks no "last caught up" time: a peer that matches the leader's whole log was caught up at its last
 * reply; for any other it is reported unknown (-1).
 */
final class QuorumStatus {
    static final String METADATA_TOPIC = "__cluster_metadata";

    private QuorumStatus() { }

    /** What the Raft leader {@code division} knows now; {@code nowMs} is the wall clock the timestamps use. */
    static DescribeQuorumResponseData describe(RaftServer.Division division, long nowMs) {
        DivisionInfo info = division.getInfo();
        // The commit index first: entries keep being appended and committed while we read, and a log end read
        // before it could fall below it (a leader reported behind its own high watermark).
        long highWatermark = division.getRaftLog().getLastCommittedIndex();
        var lastEntry = division.getRaftLog().getLastEntryTermIndex();
        long leaderEnd = lastEntry == null ? -1 : lastEntry.getIndex();
        int leaderId = RaftSetup.nodeId(info.getLeaderId());
        Map<Integer, long[]> seen = followerProgress(info, nowMs); // id → {match index, last contact ms}
        PartitionData p = new PartitionData().setPartitionIndex(0).setErrorCode(Errors.NONE.code())
                .setLeaderId(leaderId).setLeaderEpoch((int) Math.min(Integer.MAX_VALUE, info.getCurrentTerm()))
                .setHighWatermark(highWatermark);
        for (int id : ids(division.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER))) {
            p.currentVoters().add(state(id, leaderId, leaderEnd, seen, nowMs));
        }
        for (int id : ids(division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER))) {
            p.observers().add(state(id, leaderId, leaderEnd, seen, nowMs));
        }
        DescribeQuorumResponseData resp = new DescribeQuorumResponseData().setErrorCode(Errors.NONE.code());
        resp.topics().add(new DescribeQuorumResponseData.TopicData().setTopicName(METADATA_TOPIC)
                .setPartitions(new java.util.ArrayList<>(List.of(p))));
        return resp;
    }

    private static TreeSet<Integer> ids(java.util.Collection<RaftPeer> peers) {
        TreeSet<Integer> out = new TreeSet<>();
        for (RaftPeer peer : peers) out.add(RaftSetup.nodeId(peer.getId()));
        return out;
    }

    private static ReplicaState state(int id, int leaderId, long leaderEnd, Map<Integer, long[]> seen, long nowMs) {
        ReplicaState s = new ReplicaState().setReplicaId(id).setReplicaDirectoryId(Uuid.ZERO_UUID);
        if (id == leaderId) return s.setLogEndOffset(leaderEnd).setLastFetchTimestamp(nowMs).setLastCaughtUpTimestamp(nowMs);
        long[] f = seen.get(id);
        if (f == null) return s.setLogEndOffset(-1).setLastFetchTimestamp(-1).setLastCaughtUpTimestamp(-1);
        return s.setLogEndOffset(f[0]).setLastFetchTimestamp(f[1])
                .setLastCaughtUpTimestamp(f[0] >= 0 && f[0] >= leaderEnd ? f[1] : -1);
    }

    /**
     * Each follower's match index and last contact, from the leader's role info. Ratis gives the indexes as an
     * array in its followers' order; if the follower set changed between the two reads, the indexes are unknown.
     */
    private static Map<Integer, long[]> followerProgress(DivisionInfo info, long nowMs) {
        Map<Integer, long[]> out = new HashMap<>();
        RoleInfoProto role = info.getRoleInfoProto();
        if (role == null || !role.hasLeaderInfo()) return out;
        List<ServerRpcProto> followers = role.getLeaderInfo().getFollowerInfoList();
        long[] match = info.getFollowerMatchIndices();
        boolean aligned = match != null && match.length == followers.size();
        for (int i = 0; i < followers.size(); i++) {
            ServerRpcProto f = followers.get(i);
            int id = RaftSetup.nodeId(org.apache.ratis.protocol.RaftPeerId.valueOf(f.getId().getId()));
            out.put(id, new long[] {aligned ? match[i] : -1, nowMs - f.getLastRpcElapsedTimeMs()});
        }
        return out;
    }
}
