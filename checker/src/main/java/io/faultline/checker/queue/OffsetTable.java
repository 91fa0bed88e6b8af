package io.faultline.checker.queue;

import io.faultline.checker.util.LongLongMap;

import java.util.Arrays;

/**
 * offset → (first value observed there, position of the op that showed it), plus one flag per offset that the
 * analysis may set. Kafka offsets start near 0 and are nearly dense, so offsets up to a few times the number
 * stored live in plain arrays indexed by offset; any other offset (negative, huge, far past the rest) goes to
 * hash maps. The pass that builds the logs looks up every record read (millions), and an array read there costs
 * a fraction of a hash probe. An offset is stored in exactly one of the two places.
 */
final class OffsetTable {
    private static final int MIN_DENSE = 64;

    private long[] values = new long[MIN_DENSE];
    /** op position + 1, so 0 marks an empty slot. */
    private int[] opPlusOne = new int[MIN_DENSE];
    private boolean[] flags = new boolean[MIN_DENSE];
    private int size;
    private LongLongMap sparseValues; // created on the first offset that does not fit the arrays
    private LongLongMap sparseOps;

    /** Slot of {@code offset} in the arrays if it is stored there, else -1. */
    int denseSlot(long offset) {
        return offset >= 0 && offset < opPlusOne.length && opPlusOne[(int) offset] != 0 ? (int) offset : -1;
    }

    /** The value at a slot returned by {@link #denseSlot}. */
    long denseValue(int slot) {
        return values[slot];
    }

    boolean flag(int slot) {
        return flags[slot];
    }

    void setFlag(int slot) {
        flags[slot] = true;
    }

    boolean contains(long offset) {
        return denseSlot(offset) >= 0 || (sparseValues != null && sparseValues.containsKey(offset));
    }

    long value(long offset, long missing) {
        int s = denseSlot(offset);
        if (s >= 0) return values[s];
        return sparseValues == null ? missing : sparseValues.get(offset, missing);
    }

    long op(long offset, long missing) {
        int s = denseSlot(offset);
        if (s >= 0) return opPlusOne[s] - 1;
        return sparseOps == null ? missing : sparseOps.get(offset, missing);
    }

    /** Stores the first sighting at {@code offset}; the caller has checked that nothing is stored there yet. */
    void putNew(long offset, long value, int opPos) {
        if (offset >= 0 && offset < denseLimit()) {
            int o = (int) offset;
            if (o >= opPlusOne.length) grow(o);
            values[o] = value;
            opPlusOne[o] = opPos + 1;
        } else {
            if (sparseValues == null) {
                sparseValues = new LongLongMap();
                sparseOps = new LongLongMap();
            }
            sparseValues.put(offset, value);
            sparseOps.put(offset, opPos);
        }
        size++;
    }

    /** Every stored offset, unsorted. */
    long[] offsets() {
        long[] out = new long[size];
        int n = 0;
        for (int o = 0; o < opPlusOne.length; o++) {
            if (opPlusOne[o] != 0) out[n++] = o;
        }
        if (sparseValues != null) {
            for (long o : sparseValues.keys()) out[n++] = o;
        }
        return out;
    }

    /** How far the arrays may reach: a few times what is stored, so a stray huge offset cannot blow them up. */
    private long denseLimit() {
        return Math.min(1 << 30, Math.max(opPlusOne.length, 4L * size + 1024));
    }

    private void grow(int offset) {
        int cap = opPlusOne.length;
        while (cap <= offset) cap *= 2;
        values = Arrays.copyOf(values, cap);
        opPlusOne = Arrays.copyOf(opPlusOne, cap);
        flags = Arrays.copyOf(flags, cap);
    }
}
