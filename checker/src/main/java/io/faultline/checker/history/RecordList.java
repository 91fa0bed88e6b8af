package io.faultline.checker.history;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * The records one poll read from one key, as two packed longs each instead of one object each: a long history
 * holds millions of them, and their size is what a reader's heap and its collector pay for. Immutable; equal to
 * any list of the same {@link MicroOp.Record}s.
 */
final class RecordList extends AbstractList<MicroOp.Record> implements RandomAccess {
    private final long[] offsetValuePairs;

    private RecordList(long[] offsetValuePairs) {
        this.offsetValuePairs = offsetValuePairs;
    }

    @Override
    public MicroOp.Record get(int i) {
        if (i < 0 || i >= size()) throw new IndexOutOfBoundsException(i);
        return new MicroOp.Record(offsetValuePairs[2 * i], offsetValuePairs[2 * i + 1]);
    }

    long offset(int i) {
        if (i < 0 || i >= size()) throw new IndexOutOfBoundsException(i);
        return offsetValuePairs[2 * i];
    }

    long value(int i) {
        if (i < 0 || i >= size()) throw new IndexOutOfBoundsException(i);
        return offsetValuePairs[2 * i + 1];
    }

    @Override
    public int size() {
        return offsetValuePairs.length / 2;
    }

    /**
     * Collects records in order; {@link #build} copies them out, and {@link #reset} makes the builder ready for the
     * next list (a reader reuses one builder, so its buffer stops growing after the longest list seen so far).
     */
    static final class Builder {
        private long[] pairs = new long[8];
        private int n;

        void add(long offset, long value) {
            if (n + 2 > pairs.length) pairs = Arrays.copyOf(pairs, pairs.length * 2);
            pairs[n++] = offset;
            pairs[n++] = value;
        }

        void reset() {
            n = 0;
        }

        java.util.List<MicroOp.Record> build() {
            return n == 0 ? java.util.List.of() : new RecordList(Arrays.copyOf(pairs, n));
        }
    }
}
