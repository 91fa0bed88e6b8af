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
     */
    record Keys(List<Integer> keys, boolean seekToBeginning, String group) implements OpValue {
        public Keys {
            keys = List.copyOf(keys);
        }

        public Keys(List<Integer> keys, boolean seekToBeginning) {
            this(keys, seekToBeginning, null);
        }

        public Keys withGroup(String newGroup) {
            return new Keys(keys, seekToBeginning, newGroup);
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
