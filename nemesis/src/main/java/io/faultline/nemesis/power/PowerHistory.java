package io.faultline.nemesis.power;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the power faults of a run did, read back from its history (the nemesis's info entries), so that a stored
 * run can be judged again ({@code analyze}) without the nemesis that ran it.
 */
public final class PowerHistory {
    private PowerHistory() {}

    /**
     * The most nodes that were without power at the same time: each completed power-off adds the nodes it names,
     * each power-on removes those it started. A power-off that failed is not counted (its disks may not have
     * forgotten anything), nor is a node started again by another package (the count may then stay high, which
     * only makes a loss look allowed, never a bug).
     */
    public static int maxNodesOffAtOnce(List<Op> history) {
        Set<String> off = new HashSet<>();
        int max = 0;
        for (Op op : history) {
            if (op.process() != Op.NEMESIS || op.error() != null || !(op.value() instanceof OpValue.Text t)) continue;
            if (PowerNemesis.OFF.equals(op.f()) && t.text().startsWith(PowerNemesis.LOST_ON)) {
                off.addAll(nodes(t.text().substring(PowerNemesis.LOST_ON.length())));
                max = Math.max(max, off.size());
            } else if (PowerNemesis.ON.equals(op.f()) && t.text().startsWith(PowerNemesis.POWERED_ON)) {
                off.removeAll(nodes(t.text().substring(PowerNemesis.POWERED_ON.length())));
            }
        }
        return max;
    }

    /** The names in a leading "[n1, n2]" (what List.toString wrote); empty when there is none. */
    private static List<String> nodes(String text) {
        int close = text.indexOf(']');
        if (!text.startsWith("[") || close < 0) return List.of();
        List<String> out = new ArrayList<>();
        for (String n : text.substring(1, close).split(",")) {
            if (!n.isBlank()) out.add(n.strip());
        }
        return out;
    }
}
