package io.faultline.checker.queue;

import io.faultline.checker.util.LongLongMap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Everything the analysis learns about one key: the log as observed (offset → value, from polls and from sends we
 * know took effect), who wrote each value, and who read it first. After {@link #seal()}, values also have a dense
 * <em>index</em>: their position in the log with empty offsets removed, because transaction markers and aborted
 * records occupy offsets no client can see — a gap in offsets alone is therefore never a skip.
 */
final class KeyLog {
    static final long NONE = Long.MIN_VALUE;

    final int key;
    /**
     * offset → first value observed there and the position (in the op list) of the op that showed it; its flag
     * marks offsets whose first value is already in {@link #reader}.
     */
    final OffsetTable at = new OffsetTable();
    /** offset → further, different values observed there (divergence; rare). */
    final Map<Long, Set<Long>> otherValuesAt = new HashMap<>();
    /** offset → the op positions that showed each further value (parallel to otherValuesAt; rare). */
    final Map<Long, List<long[]>> divergentOps = new HashMap<>();
    /** value → first offset it was observed at. */
    final LongLongMap offsetOf = new LongLongMap(64);
    /** value → every offset it was observed at, only for values seen at more than one (rare). */
    final Map<Long, TreeSet<Long>> duplicateOffsets = new HashMap<>();
    /** value → op position of its first duplicate sighting (parallel to duplicateOffsets). */
    final Map<Long, long[]> duplicateOps = new HashMap<>();
    /** value → position of the completion op that sent it. */
    final LongLongMap writer = new LongLongMap(64);
    /**
     * value → 1 when the broker acknowledged its send: every send of an ok op, and a send of an indeterminate
     * multi-send op that got its own offset back (sends within one op are not atomic).
     */
    final LongLongMap acknowledged = new LongLongMap(64);
    /** value → position of the first poll (OK, or INFO with records) that returned it. */
    final LongLongMap reader = new LongLongMap(64);

    // Filled by seal():
    long[] offsets; // non-empty offsets, ascending
    /**
     * offset - denseBase → dense index (-1: nothing there), when the observed offsets are dense enough for an
     * array; else null and {@link #indexOfOffset} searches {@link #offsets}. The walk looks up every record read.
     */
    private int[] denseIndex;
    private long denseBase;
    /** value → first dense index. */
    LongLongMap firstIndex;
    /** value → last dense index, only where it differs from the first (duplicates). */
    LongLongMap lastIndexIfDifferent;
    /** Dense indexes where a value whose send failed was observed; null when there are none. */
    private boolean[] failedWriteAt;

    KeyLog(int key) {
        this.key = key;
    }

    /** Records that {@code value} was observed at {@code offset} by the op at position {@code opPos}. */
    void observe(long offset, long value, int opPos) {
        long existing = at.value(offset, NONE);
        if (existing == NONE && !at.contains(offset)) {
            at.putNew(offset, value, opPos);
        } else if (existing != value) {
            Set<Long> others = otherValuesAt.computeIfAbsent(offset, o -> new LinkedHashSet<>());
            if (others.add(value)) {
                divergentOps.computeIfAbsent(offset, o -> new ArrayList<>()).add(new long[] {value, opPos});
            } else {
                return; // this divergent value at this offset is already known
            }
        } else {
            return; // same value at same offset: nothing new
        }
        long firstOffset = offsetOf.get(value, NONE);
        if (firstOffset == NONE && !offsetOf.containsKey(value)) {
            offsetOf.put(value, offset);
        } else if (firstOffset != offset) {
            TreeSet<Long> all = duplicateOffsets.get(value);
            if (all == null) {
                all = new TreeSet<>();
                all.add(firstOffset);
                duplicateOffsets.put(value, all);
                duplicateOps.put(value, new long[] {at.op(firstOffset, -1), opPos});
            }
            all.add(offset);
        }
    }

    /**
     * A polled record: observed like any other, and, if the poll delivered it, its value's first reader noted. Most
     * records are re-reads of an offset's known value by yet another consumer; those cost one array read here
     * instead of two hash probes. The reader map sees the same insertions in the same order as without the
     * shortcut (a put-if-absent of a present value changes nothing), so its iteration order is unchanged.
     */
    void observeRead(long offset, long value, int opPos, boolean delivered) {
        int slot = at.denseSlot(offset);
        if (slot >= 0 && at.denseValue(slot) == value) {
            if (delivered && !at.flag(slot)) {
                reader.putIfAbsent(value, opPos);
                at.setFlag(slot);
            }
            return;
        }
        observe(offset, value, opPos);
        if (delivered) {
            reader.putIfAbsent(value, opPos);
            slot = at.denseSlot(offset);
            if (slot >= 0 && at.denseValue(slot) == value) {
                at.setFlag(slot);
            }
        }
    }

    /** Builds the dense version order. Call once, after all observations. */
    void seal() {
        offsets = at.offsets();
        Arrays.sort(offsets);
        int n = offsets.length;
        long span = n == 0 ? -1 : offsets[n - 1] - offsets[0]; // negative if it overflowed
        if (span >= 0 && span < 4L * n + 64) {
            denseBase = offsets[0];
            denseIndex = new int[(int) span + 1];
            Arrays.fill(denseIndex, -1);
            for (int i = 0; i < n; i++) {
                denseIndex[(int) (offsets[i] - denseBase)] = i;
            }
        }
        firstIndex = new LongLongMap(Math.max(16, offsets.length));
        lastIndexIfDifferent = new LongLongMap(16);
        for (int i = 0; i < offsets.length; i++) {
            index(at.value(offsets[i], NONE), i);
            Set<Long> others = otherValuesAt.get(offsets[i]);
            if (others != null) {
                for (long v : others) {
                    index(v, i);
                }
            }
        }
    }

    /**
     * Notes that {@code value}'s send definitely failed: every dense index where it was observed may hold an
     * aborted read. The per-record check then probes the writer map only at those indexes. Call after seal().
     */
    void markFailedWrite(long value) {
        long first = offsetOf.get(value, NONE);
        if (first == NONE && !offsetOf.containsKey(value)) {
            return; // never observed at any offset, so no poll returned it
        }
        if (failedWriteAt == null) {
            failedWriteAt = new boolean[offsets.length];
        }
        failedWriteAt[indexOfOffset(first)] = true;
        TreeSet<Long> all = duplicateOffsets.get(value);
        if (all != null) {
            for (long o : all) {
                failedWriteAt[indexOfOffset(o)] = true;
            }
        }
    }

    /** Whether a record at dense index i might carry a value whose send failed (false: it certainly does not). */
    boolean mayHoldFailedWrite(int i) {
        return i < 0 || (failedWriteAt != null && failedWriteAt[i]);
    }

    private void index(long value, int i) {
        if (!firstIndex.putIfAbsent(value, i)) {
            lastIndexIfDifferent.put(value, i);
        }
    }

    /** Dense index of {@code value}'s first appearance, or -1 if it never appeared at a known offset. */
    int indexOf(long value) {
        return (int) firstIndex.get(value, -1);
    }

    /** Dense index of an observed offset, or -1 if nothing was observed there. */
    int indexOfOffset(long offset) {
        if (denseIndex != null) {
            long d = offset - denseBase;
            return d >= 0 && d < denseIndex.length ? denseIndex[(int) d] : -1;
        }
        int i = Arrays.binarySearch(offsets, offset);
        return i >= 0 ? i : -1;
    }

    int lastIndexOf(long value) {
        long last = lastIndexIfDifferent.get(value, NONE);
        return last == NONE ? indexOf(value) : (int) last;
    }

    /** The value at dense index i (the first one seen, should the offset have diverged). */
    long valueAtIndex(int i) {
        return at.value(offsets[i], NONE);
    }

    long offsetAtIndex(int i) {
        return offsets[i];
    }

    int size() {
        return offsets.length;
    }

    /** Values strictly between dense indexes a and b, at most {@code limit} of them, for explanations. */
    List<Long> valuesBetween(int a, int b, int limit) {
        List<Long> out = new ArrayList<>();
        for (int i = a + 1; i < b && out.size() < limit; i++) {
            out.add(valueAtIndex(i));
        }
        return out;
    }
}
