package io.faultline.checker.linear;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Exact simplifications of read/write register histories before the search. */
public final class RegisterHistories {
    private RegisterHistories() {}

    /**
     * The history without its indeterminate writes whose value no completed read returned. Exact for a plain
     * register (no compare-and-set): such a write either never took effect, or took effect and was overwritten before
     * any completed read (a completed read after it would have returned its value), so dropping it changes no
     * verdict. It matters because every indeterminate write stays concurrent with everything after it: a few hundred
     * of them (writes cut off by a fault) make the search give up. With a compare-and-set the history is returned
     * unchanged, since a write's value can decide a swap without ever being read.
     */
    public static <O> List<LinOp<RegisterOp, O>> withoutUnreadIndeterminateWrites(List<LinOp<RegisterOp, O>> ops) {
        Set<Object> read = new HashSet<>();
        for (LinOp<RegisterOp, O> op : ops) {
            if (op.input() instanceof RegisterOp.Cas) return ops;
            if (op.input() instanceof RegisterOp.Read && !op.indeterminate() && op.output() != null) read.add(op.output());
        }
        return ops.stream().filter(op -> !(op.indeterminate() && op.input() instanceof RegisterOp.Write w
                && !read.contains(w.value()))).toList();
    }
}
