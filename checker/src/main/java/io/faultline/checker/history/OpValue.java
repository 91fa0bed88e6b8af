package io.faultline.checker.history;

import java.util.List;

/**
 * The typed value of an operation. Closed set: each kind maps onto one of Jepsen's value shapes so that EDN export
 * stays compatible with Jepsen tools.
 */
public sealed interface OpValue permits OpValue.Txn, OpValue.Keys, OpValue.None, OpValue.Text {

    /** A vector of micro-ops: the value of :send, :poll (and :txn, should we ever add transactions). */
    record Txn(List<MicroOp> mops) implements OpValue {
        public Txn {
            mops = List.copyOf(mops);
        }

        public static Txn of(MicroOp... mops) {
            return new Txn(List.of(mops));
        }
    }

    /**
     * The keys of an :assign or :subscribe. {@code seekToBeginning} is Jepsen's op-level
     * {@code :seek-to-beginning?} flag; we keep it with the keys because it only makes sense there. {@code group}:
     * on a completed subscribe, the consumer group the consumer joined (null when not recorded: invocations, assigns,
     * and histories written before the field existed), so a checker knows which group's commits bind its polls.
     * {@code seekToEnd}: an assign that moves every assigned partition to its end (a tail reader, which reads records
     * moments after they are written); like a seek to the beginning, it drops the positions the consumer had.
     */
    record Keys(List<Integer> keys, boolean seekToBeginning, String group, boolean seekToEnd) implements OpValue {
        public Keys {
            keys = List.copyOf(keys);
            if (seekToBeginning && seekToEnd) throw new IllegalArgumentException("seek to the beginning or to the end, not both");
        }

        public Keys(List<Integer> keys, boolean seekToBeginning) {
            this(keys, seekToBeginning, null, false);
        }

        public Keys(List<Integer> keys, boolean seekToBeginning, String group) {
            this(keys, seekToBeginning, group, false);
        }

        /** An assign of these keys that starts at their ends. */
        public static Keys tail(List<Integer> keys) {
            return new Keys(keys, false, null, true);
        }

        /** The same keys and group, starting at the ends (a history reader's view of a stored seek-to-end flag). */
        public Keys withSeekToEnd() {
            return new Keys(keys, false, group, true);
        }

        public Keys withGroup(String newGroup) {
            return new Keys(keys, seekToBeginning, newGroup, seekToEnd);
        }

        /** Whether this op moves the consumer's positions (either way), so none it had before holds. */
        public boolean seeks() {
            return seekToBeginning || seekToEnd;
        }
    }

    /** No value (e.g. :crash); nil in EDN, null in JSON. */
    record None() implements OpValue {
        public static final None INSTANCE = new None();
    }

    /** Free text, for operations outside the queue model (e.g. a nemesis describing what it did). */
    record Text(String text) implements OpValue {
    }
}
