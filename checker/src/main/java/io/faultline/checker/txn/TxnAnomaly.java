package io.faultline.checker.txn;

import java.util.ArrayList;
import java.util.List;

/** Adya's / Elle's anomaly names as the transactional checker reports them. */
public final class TxnAnomaly {
    private TxnAnomaly() {
    }

    /** Aborted read: a committed transaction read a value whose writer aborted. */
    public static final String G1A = "G1a";
    /** Intermediate read: a transaction's read of a key ended at a value its writer later superseded. */
    public static final String G1B = "G1b";
    /** Cycle classes, each also with "-process" and "-realtime" forms. */
    public static final List<String> CYCLE_BASES = List.of("G0", "G1c", "G-single", "G2-item");

    /** Every category, in report order. */
    public static List<String> all() {
        List<String> out = new ArrayList<>(List.of(G1A, G1B));
        for (String suffix : List.of("", "-process", "-realtime")) {
            for (String base : CYCLE_BASES) {
                out.add(base + suffix);
            }
        }
        return out;
    }

    /** Elle's classification of a cycle by the kinds of its edges. */
    static String classify(int ww, int wr, int rw, int process, int realtime) {
        String base = rw >= 2 ? "G2-item" : rw == 1 ? "G-single" : wr > 0 ? "G1c" : "G0";
        return base + (realtime > 0 ? "-realtime" : process > 0 ? "-process" : "");
    }
}
