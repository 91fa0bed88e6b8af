package io.faultline.nemesis;

import java.util.List;
import java.util.Set;

/**
 * One kind of fault, ready to compose with others (Jepsen's nemesis package): the nemesis that performs it, the
 * generator of its ops, the ops that heal it at the end of every run, and how reports draw it.
 *
 * @param name      short id used on the command line: "partition", "kill", "pause", "clock", "disk", ...
 * @param faultFs   op functions that begin (or extend) a fault band in a plot
 * @param healFs    op functions that end the band; empty when each fault op is instantaneous (disk, restart)
 * @param colour    plot colour of the band, "#RRGGBB"
 */
public record FaultPackage(String name, Nemesis nemesis, OpGenerator generator, List<FaultOp> finalHeal,
                           String colour, Set<String> faultFs, Set<String> healFs) {
    public FaultPackage {
        finalHeal = List.copyOf(finalHeal);
        faultFs = Set.copyOf(faultFs);
        healFs = Set.copyOf(healFs);
        for (String f : faultFs) requireKnown(nemesis, f, name);
        for (String f : healFs) requireKnown(nemesis, f, name);
        for (FaultOp op : finalHeal) requireKnown(nemesis, op.f(), name);
    }

    private static void requireKnown(Nemesis nemesis, String f, String pkg) {
        if (!nemesis.fs().contains(f)) throw new IllegalArgumentException(pkg + ": nemesis does not handle " + f);
    }

    public boolean isHeal(String f) {
        return healFs.contains(f);
    }

    /** How a report draws this package, without the nemesis. */
    public Legend legend() {
        return new Legend(name, colour, faultFs, healFs);
    }

    /** A package's name, colour and the op functions that open and close its bands. */
    public record Legend(String name, String colour, Set<String> faultFs, Set<String> healFs) {
        public Legend {
            faultFs = Set.copyOf(faultFs);
            healFs = Set.copyOf(healFs);
        }
    }
}
