package io.faultline.checker.observe;

import io.faultline.checker.observe.ClusterSnapshot.PartitionState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TransitionsTest {
    private static ClusterSnapshot snap(int controller, Set<Integer> brokers, int leader, Set<Integer> isr) {
        return new ClusterSnapshot(true, controller, brokers, Map.of("t-0", new PartitionState(leader, List.of(1, 2, 3), isr)));
    }

    private static List<String> kinds(Transitions t, ClusterSnapshot... snapshots) {
        List<String> out = new ArrayList<>();
        long time = 0;
        for (ClusterSnapshot s : snapshots) for (Transition x : t.next(time++, s)) out.add(x.kind());
        return out;
    }

    @Test
    void aLeaderIsolatedAndKilledIsAShrinkAMoveAndAReturn() {
        var all = Set.of(1, 2, 3);
        assertEquals(List.of("isr-shrink", "leader-moved", "isr-shrink-to-leader", "broker-fenced", "isr-expand",
                        "broker-unfenced", "isr-full", "leader-returned"),
                kinds(new Transitions(),
                        snap(3, all, 1, all),
                        snap(3, all, 1, Set.of(1, 2)),
                        snap(3, all, 2, Set.of(2)),
                        snap(3, Set.of(2, 3), 2, Set.of(2)),
                        snap(3, Set.of(2, 3), 2, Set.of(2, 3)),
                        snap(3, all, 2, Set.of(2, 3)),
                        snap(3, all, 2, Set.of(1, 2, 3)),
                        snap(3, all, 1, Set.of(1, 2, 3))));
    }

    @Test
    void anElectionOfAReplicaOutsideTheLastIsrIsNamedSo() {
        var all = Set.of(1, 2, 3);
        assertEquals(List.of("isr-shrink-to-leader", "leader-lost", "leader-elected-outside-isr"),
                kinds(new Transitions(),
                        snap(1, all, 1, all),
                        snap(1, all, 1, Set.of(1)),
                        snap(1, all, -1, Set.of(1)),
                        snap(1, all, 3, Set.of(3))));
    }

    @Test
    void controllerChangesAndAnUnansweredPollAreClusterTransitions() {
        var all = Set.of(1, 2, 3);
        assertEquals(List.of("metadata-unavailable", "metadata-available", "controller-moved", "controller-moved",
                        "leader-moved", "leader-on-controller", "controller-lost", "controller-elected"),
                kinds(new Transitions(),
                        snap(1, all, 2, all),
                        ClusterSnapshot.unanswered(),
                        ClusterSnapshot.unanswered(), // still unavailable: nothing new
                        snap(2, all, 2, all),         // compared with the last answered poll
                        snap(3, all, 3, all),         // cluster first, then the partitions
                        snap(-1, all, 3, all),
                        snap(1, all, 3, all)));
    }
}
