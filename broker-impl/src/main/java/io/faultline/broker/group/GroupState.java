package io.faultline.broker.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * States of a classic consumer group and the legal transitions into each (Kafka's GroupState):
 * <pre>
 * Empty               -&gt; PreparingRebalance (a member joins)
 * PreparingRebalance  -&gt; CompletingRebalance (all known members rejoined or rebalance timeout) | Empty (nobody left)
 * CompletingRebalance -&gt; Stable (leader's SyncGroup) | PreparingRebalance (join/leave/expiry)
 * Stable              -&gt; PreparingRebalance (join with new metadata, leave, session expiry)
 * any                 -&gt; Dead (group removed)
 * </pre>
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** The name Kafka reports in DescribeGroups / ListGroups. */
    public String kafkaName() {
        return kafkaName;
    }

    Set<GroupState> validPrevious() {
        return switch (this) {
            case EMPTY -> EnumSet.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE -> EnumSet.of(EMPTY, STABLE, COMPLETING_REBALANCE);
            case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE);
            case STABLE -> EnumSet.of(COMPLETING_REBALANCE);
            case DEAD -> EnumSet.allOf(GroupState.class);
        };
    }
}
