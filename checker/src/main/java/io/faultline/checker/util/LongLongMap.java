package io.faultline.checker.util;

import java.util.Arrays;

/**
 * Open-addressing hash map from long to long, no boxing. The analysis keeps several of these per key (offset →
 * value, value → writer, ...); with boxed maps a million-event history spends most of its time allocating.
 */
public final class LongLongMap {
    private static final long FREE = Long.MIN_VALUE;

    private long[] keys;
    private long[] values;
    private int size;
    private int mask;
    // FREE marks empty slots, so the key Long.MIN_VALUE itself lives outside the table.
    private boolean hasFreeKey;
    private long freeKeyValue;

    public LongLongMap() {
        this(16);
    }

    public LongLongMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[cap];
        values = new long[cap];
        Arrays.fill(keys, FREE);
        mask = cap - 1;
    }

    public int size() {
        return size + (hasFreeKey ? 1 : 0);
    }

    public boolean containsKey(long key) {
        if (key == FREE) {
            return hasFreeKey;
        }
        return keys[slot(key)] != FREE;
    }

    /** The value for {@code key}, or {@code missing} if absent. */
    public long get(long key, long missing) {
        if (key == FREE) {
            return hasFreeKey ? freeKeyValue : missing;
        }
        int s = slot(key);
        return keys[s] == FREE ? missing : values[s];
    }

    public void put(long key, long value) {
        if (key == FREE) {
            hasFreeKey = true;
            freeKeyValue = value;
            return;
        }
        int s = slot(key);
        if (keys[s] == FREE) {
            keys[s] = key;
            values[s] = value;
            if (++size * 2 > keys.length) {
                grow();
            }
        } else {
            values[s] = value;
        }
    }

    /** Puts only if absent; returns true if it was absent. */
    public boolean putIfAbsent(long key, long value) {
        if (key == FREE) {
            if (hasFreeKey) {
                return false;
            }
            put(key, value);
            return true;
        }
        int s = slot(key); // one probe, not two: the readers' index calls this once per record read
        if (keys[s] != FREE) {
            return false;
        }
        keys[s] = key;
        values[s] = value;
        if (++size * 2 > keys.length) {
            grow();
        }
        return true;
    }

    /** Calls {@code visitor} for every entry, in no particular order. */
    public void forEach(EntryVisitor visitor) {
        if (hasFreeKey) {
            visitor.visit(FREE, freeKeyValue);
        }
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != FREE) {
                visitor.visit(keys[i], values[i]);
            }
        }
    }

    /** All keys, unsorted. */
    public long[] keys() {
        long[] out = new long[size()];
        int n = 0;
        if (hasFreeKey) {
            out[n++] = FREE;
        }
        for (long k : keys) {
            if (k != FREE) {
                out[n++] = k;
            }
        }
        return out;
    }

    @FunctionalInterface
    public interface EntryVisitor {
        void visit(long key, long value);
    }

    private int slot(long key) {
        int s = mix(key) & mask;
        while (keys[s] != FREE && keys[s] != key) {
            s = (s + 1) & mask;
        }
        return s;
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new long[oldValues.length * 2];
        Arrays.fill(keys, FREE);
        mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != FREE) {
                int s = slot(oldKeys[i]);
                keys[s] = oldKeys[i];
                values[s] = oldValues[i];
            }
        }
    }
}
