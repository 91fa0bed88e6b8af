package io.faultline.checker.history;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One step of a queue operation, in Jepsen's micro-op shape: {@code [:send k v]} / {@code [:send k [offset v]]}
 * and {@code [:poll]} / {@code [:poll {k [[offset v] ...]}]}.
 */
public sealed interface MicroOp permits MicroOp.Send, MicroOp.Poll {

    /**
     * Appends {@code value} to {@code key}. {@code offset} is null when unknown: on invocation, when the send
     * timed out, or under acks=0 where the broker never tells us.
     */
    record Send(int key, long value, Long offset) implements MicroOp {
        public static Send invoke(int key, long value) {
            return new Send(key, value, null);
        }

        public Send withOffset(Long newOffset) {
            return new Send(key, value, newOffset);
        }

        public boolean hasOffset() {
            return offset != null;
        }
    }

    /**
     * A single poll. {@code reads} is null on invocation (nothing read yet) and a key-sorted map of the records
     * returned, per key in log order, on completion.
     */
    record Poll(Map<Integer, List<Record>> reads) implements MicroOp {
        public Poll {
            if (reads != null) {
                // Key order makes output deterministic; most polls read one key, which needs no tree.
                if (reads.size() == 1) {
                    Map.Entry<Integer, List<Record>> e = reads.entrySet().iterator().next();
                    reads = Map.of(e.getKey(), e.getValue());
                } else {
                    reads = reads.isEmpty() ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(reads));
                }
            }
        }

        public static Poll invoke() {
            return new Poll(null);
        }

        public Map<Integer, List<Record>> readsOrEmpty() {
            return reads == null ? Map.of() : reads;
        }
    }

    /** One record seen by a poll: its offset in the key's partition and its value. */
    record Record(long offset, long value) {
        @Override
        public String toString() {
            return "[" + offset + " " + value + "]";
        }
    }

    static Record rec(long offset, long value) {
        return new Record(offset, value);
    }

    static Poll poll(Map<Integer, List<Record>> reads) {
        return new Poll(Objects.requireNonNull(reads));
    }
}
