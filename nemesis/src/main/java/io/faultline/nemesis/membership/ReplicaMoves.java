package io.faultline.nemesis.membership;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Where a partition's replicas move to (pure, seeded): one replica swapped for a broker outside the set, or, when
 * there are enough brokers outside it, half the time all of them at once (a move to a disjoint set, the hardest
 * case: every new replica must catch up and the leader must hand over). With no broker outside the set the order
 * rotates, which changes only the preferred leader. The replication factor never changes.
 */
public final class ReplicaMoves {
    private ReplicaMoves() { }

    public static List<Integer> target(List<Integer> current, List<Integer> brokers, Random random) {
        if (current.isEmpty()) throw new IllegalArgumentException("a partition has at least one replica");
        List<Integer> spare = new ArrayList<>(brokers.stream().distinct().sorted().filter(b -> !current.contains(b)).toList());
        if (spare.isEmpty()) {
            List<Integer> rotated = new ArrayList<>(current.subList(1, current.size()));
            rotated.add(current.get(0));
            return List.copyOf(rotated);
        }
        if (spare.size() >= current.size() && random.nextBoolean()) {
            java.util.Collections.shuffle(spare, random);
            return List.copyOf(spare.subList(0, current.size()));
        }
        List<Integer> out = new ArrayList<>(current);
        out.set(random.nextInt(out.size()), spare.get(random.nextInt(spare.size())));
        return List.copyOf(out);
    }
}
