package io.faultline.broker.group;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A classic-protocol group: members, generation, chosen protocol and its {@link GroupState}. Every field is
 * guarded by the group's monitor; {@link #transitionTo} is the only way to change state and rejects illegal moves.
 */
final class ClassicGroup {
    final String groupId;
    private GroupState state = GroupState.EMPTY;
    int generationId;
    String protocolType;
    String protocolName;
    String leaderId;
    final Map<String, GroupMember> members = new LinkedHashMap<>();
    /** Members told MEMBER_ID_REQUIRED, with the nano deadline by which they must rejoin. */
    final Map<String, Long> pendingMembers = new HashMap<>();
    /** Deadline of the current PreparingRebalance / CompletingRebalance phase. */
    long phaseDeadlineNanos;
    /** While the initial rebalance delay of an empty group runs, the join does not complete early. */
    boolean initialDelay;

    ClassicGroup(String groupId) {
        this.groupId = groupId;
    }

    GroupState state() {
        return state;
    }

    boolean is(GroupState s) {
        return state == s;
    }

    void transitionTo(GroupState target) {
        if (!target.validPrevious().contains(state)) {
            throw new IllegalStateException("group " + groupId + ": illegal transition " + state + " -> " + target);
        }
        state = target;
    }

    /** A joining member's protocols must share the group's type and at least one protocol with every member. */
    boolean supports(String type, Set<String> protocols) {
        if (members.isEmpty()) return type != null && !type.isEmpty() && !protocols.isEmpty();
        if (!type.equals(protocolType)) return false;
        for (GroupMember m : members.values()) {
            if (m.protocols.keySet().stream().noneMatch(protocols::contains)) return false;
        }
        return true;
    }

    /** The protocol every member supports that gets the most first-choice votes (ties: first member's order). */
    String selectProtocol() {
        GroupMember first = members.values().iterator().next();
        String best = null;
        int bestVotes = -1;
        for (String candidate : first.protocols.keySet()) {
            if (!members.values().stream().allMatch(m -> m.protocols.containsKey(candidate))) continue;
            int votes = 0;
            for (GroupMember m : members.values()) {
                String pick = m.protocols.keySet().stream().filter(p -> members.values().stream()
                        .allMatch(o -> o.protocols.containsKey(p))).findFirst().orElse(null);
                if (candidate.equals(pick)) votes++;
            }
            if (votes > bestVotes) {
                best = candidate;
                bestVotes = votes;
            }
        }
        return best;
    }

    boolean allMembersJoined() {
        return pendingMembers.isEmpty() && members.values().stream().allMatch(m -> m.awaitingJoin != null);
    }

    int maxRebalanceTimeoutMs() {
        return members.values().stream().mapToInt(m -> m.rebalanceTimeoutMs).max().orElse(0);
    }
}
