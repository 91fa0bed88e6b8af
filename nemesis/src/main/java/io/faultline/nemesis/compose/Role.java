package io.faultline.nemesis.compose;

/**
 * Whom a composition's step acts on, bound when the composition starts: the leader of its target partition, that
 * partition's followers in replica order (a clean election takes the first live ISR member in that order), all its
 * followers, the active controller, or the coordinator of the workload's consumer group (the broker its members
 * commit offsets to and rebalance through). A role keeps its node for the whole composition, so "isolate the leader, then
 * kill it" kills the node that was isolated, not whoever leads by then.
 */
public enum Role {
    LEADER, FOLLOWER_1, FOLLOWER_2, FOLLOWERS, CONTROLLER, COORDINATOR;

    public String label() {
        return name().toLowerCase().replace('_', '-');
    }
}
