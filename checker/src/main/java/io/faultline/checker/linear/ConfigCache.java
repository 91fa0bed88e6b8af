package io.faultline.checker.linear;

/**
 * The set of search configurations {@link Wgl} has explored, stored exactly and compactly: one record of
 * {@code 1 + words} longs per configuration in a single open-addressing table (linear probing, no boxing, no
 * per-entry object). Record word 0 packs the frontier event and the interned model state; the other words are the
 * slot mask of linearized ops still open at the frontier (see {@link Wgl}). Word 0 is never 0 for a real record
 * (the frontier event is ≥ 1), so 0 marks an empty slot.
 */
final class ConfigCache {
    /** What {@link #add} did: stored a new configuration, found it already there, or had no room for it. */
    static final int ADDED = 0, PRESENT = 1, FULL = 2;

    private static final int MIN_CAPACITY = 1 << 10;

    private final int words;
    private final long maxBytes;
    private long[] table;
    private int capacity;
    private long size;

    ConfigCache(int maskWords, long maxBytes) {
        this.words = 1 + maskWords;
        this.maxBytes = maxBytes;
        this.capacity = MIN_CAPACITY;
        this.table = new long[capacity * words];
    }

    long size() {
        return size;
    }

    /** Bytes the table would take after its next doubling: what {@link #FULL} refused. */
    long bytesNeededToGrow() {
        return 2L * capacity * words * Long.BYTES;
    }

    static long head(int frontier, int stateId) {
        return ((long) frontier << 32) | (stateId & 0xFFFF_FFFFL);
    }

    /**
     * Adds the configuration (head, mask); {@link #PRESENT} if it was already there, {@link #FULL} if storing it
     * would take the table past its byte bound (or past what one Java array holds).
     */
    int add(long head, long[] mask) {
        if ((size + 1) * 4 > (long) capacity * 3) {
            if (!grow()) {
                return FULL;
            }
        }
        int at = find(table, capacity, head, mask);
        if (table[at] != 0) {
            return PRESENT;
        }
        table[at] = head;
        System.arraycopy(mask, 0, table, at + 1, words - 1);
        size++;
        return ADDED;
    }

    private int find(long[] t, int cap, long head, long[] mask) {
        int i = (int) (hash(head, mask) >>> (64 - Integer.numberOfTrailingZeros(cap)));
        while (true) {
            int at = i * words;
            long h = t[at];
            if (h == 0) {
                return at;
            }
            if (h == head && sameMask(t, at + 1, mask)) {
                return at;
            }
            i = (i + 1) & (cap - 1);
        }
    }

    private boolean sameMask(long[] t, int from, long[] mask) {
        for (int w = 0; w < words - 1; w++) {
            if (t[from + w] != mask[w]) {
                return false;
            }
        }
        return true;
    }

    /** Multiplicative (Fibonacci) hashing; {@link #find} takes the top bits, which mix every input bit. */
    private long hash(long head, long[] mask) {
        long h = head * 0x9E3779B97F4A7C15L;
        for (int w = 0; w < words - 1; w++) {
            h = (h ^ mask[w]) * 0xC2B2AE3D27D4EB4FL;
        }
        return h ^ (h >>> 32) * 0x9E3779B97F4A7C15L;
    }

    private boolean grow() {
        long newCap = 2L * capacity;
        if (newCap * words > Integer.MAX_VALUE - 8 || newCap * words * Long.BYTES > maxBytes) {
            return false;
        }
        int cap = (int) newCap;
        long[] t = new long[cap * words];
        long[] mask = new long[words - 1];
        for (int i = 0; i < capacity; i++) {
            int at = i * words;
            long head = table[at];
            if (head != 0) {
                System.arraycopy(table, at + 1, mask, 0, words - 1);
                int to = find(t, cap, head, mask);
                System.arraycopy(table, at, t, to, words);
            }
        }
        table = t;
        capacity = cap;
        return true;
    }
}
