package io.faultline.broker.group;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/** One member of a classic group. Mutated only under its group's lock. */
final class GroupMember {
    final String memberId;
    final String groupInstanceId;
    final String clientId;
    final String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    /** Protocol name → metadata, in the member's preference order. */
    Map<String, byte[]> protocols = new LinkedHashMap<>();
    byte[] assignment = new byte[0];
    long lastHeartbeatNanos;
    /** Set while a JoinGroup waits for the rebalance to complete. */
    Consumer<GroupCoordinator.JoinResult> awaitingJoin;
    /** Set while a SyncGroup waits for the leader's assignment. */
    Consumer<GroupCoordinator.SyncResult> awaitingSync;

    GroupMember(String memberId, String groupInstanceId, String clientId, String clientHost) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }

    boolean sameProtocols(Map<String, byte[]> other) {
        if (!protocols.keySet().equals(other.keySet())) return false;
        for (Map.Entry<String, byte[]> e : other.entrySet()) {
            if (!Arrays.equals(protocols.get(e.getKey()), e.getValue())) return false;
        }
        return true;
    }
}
