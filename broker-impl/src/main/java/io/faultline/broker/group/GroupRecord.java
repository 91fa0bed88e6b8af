package io.faultline.broker.group;

import java.util.List;

/**
 * A group's membership as persisted in {@code __consumer_offsets} whenever it becomes Stable or Empty (Kafka's
 * GroupMetadata record), so that after a restart live members keep their generation instead of rebalancing.
 */
public record GroupRecord(String groupId, String protocolType, int generationId, String protocolName,
                          String leaderId, List<Member> members) {

    /** One member with the subscription of the chosen protocol and its assignment. */
    public record Member(String memberId, String groupInstanceId, String clientId, String clientHost,
                         int rebalanceTimeoutMs, int sessionTimeoutMs, byte[] subscription, byte[] assignment) {
    }

    public GroupRecord {
        members = List.copyOf(members);
    }
}
