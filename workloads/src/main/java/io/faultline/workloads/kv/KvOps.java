package io.faultline.workloads.kv;

import io.faultline.checker.history.OpValue;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;

import java.util.ArrayList;
import java.util.List;

/**
 * The compacted key-value workload's operations, as text values: {@code kv-write} invoke {@code "k v"}, ok
 * {@code "k v o"} (o: the offset the broker gave it); {@code kv-read} (after the heal) ok {@code "k v o,k v o,..."}:
 * the whole compacted partition read from its beginning.
 */
public final class KvOps {
    public static final String WRITE = "kv-write", READ = "kv-read";
    public static final java.util.Set<String> ALL = java.util.Set.of(WRITE, READ);
    /** The error of a write its transaction aborted on purpose. */
    public static final String ABORTED = "aborted on purpose";
    /** The workload's topic is {@code prefix + TOPIC_SUFFIX}. */
    public static final String TOPIC_SUFFIX = "-kv";

    private KvOps() {}

    /** One record: key, value and offset (null until the broker gave one). */
    public record Rec(int key, long value, Long offset) {
        String text() {
            return key + " " + value + (offset == null ? "" : " " + offset);
        }

        static Rec parse(String text) {
            String[] p = text.trim().split(" ");
            if (p.length < 2 || p.length > 3) throw new IllegalArgumentException("not a kv record: \"" + text + "\"");
            return new Rec(Integer.parseInt(p[0]), Long.parseLong(p[1]), p.length == 3 ? Long.parseLong(p[2]) : null);
        }
    }

    public static OpValue.Text write(Rec r) {
        return new OpValue.Text(r.text());
    }

    public static Rec parseWrite(OpValue v) {
        if (!(v instanceof OpValue.Text t)) throw new IllegalArgumentException("not a kv value: " + v);
        return Rec.parse(t.text());
    }

    public static OpValue.Text readResult(List<Rec> recs) {
        StringBuilder b = new StringBuilder();
        for (Rec r : recs) b.append(b.length() == 0 ? "" : ",").append(r.text());
        return new OpValue.Text(b.toString());
    }

    public static List<Rec> parseRead(OpValue v) {
        if (!(v instanceof OpValue.Text t)) throw new IllegalArgumentException("not a kv read: " + v);
        List<Rec> out = new ArrayList<>();
        if (t.text().isBlank()) return out;
        for (String s : t.text().split(",")) out.add(Rec.parse(s));
        return out;
    }

    /**
     * Writes over {@code keys} keys, each of a value never written before: keys are overwritten again and again. One
     * write in 10 is a tombstone (a null value, which compaction keeps for delete.retention.ms, a day by default):
     * written as the negative of its number, read back as {@link #TOMBSTONE}.
     */
    public static Gen random(long seed, int keys) {
        long[] next = {0};
        return Gens.random(seed, rng -> {
            int key = rng.below(keys);
            long v = ++next[0];
            return Gens.op(WRITE, write(new Rec(key, rng.below(10) == 0 ? -v : v, null)));
        });
    }

    /** The value a tombstone reads as (numbers written start at 1). */
    public static final long TOMBSTONE = 0;

    /** A write's value as a read shows it: a tombstone's as {@link #TOMBSTONE}. */
    public static long asRead(long written) {
        return written < 0 ? TOMBSTONE : written;
    }

    /** With transactions on, one write in 3 (by its value, unique) is a transaction of its own. */
    public static boolean transactional(long value) {
        return value % 3 == 0;
    }

    /** Of those, one in 4 is aborted. */
    public static boolean aborted(long value) {
        return transactional(value) && value % 12 == 0;
    }

    /** Final writes' values start above any the main phase reaches, at a multiple of 3. */
    static final long FINAL_BASE = 3_000_000_000L;

    /**
     * After the heal, before the final read: one plain write to each key, on thread 0, of a value never written before
     * (not transactional, not a tombstone), so the read judges at least one acknowledged write per key.
     */
    public static Gen finalWrites(int keys) {
        List<Gen> writes = new ArrayList<>();
        for (int k = 0; k < keys; k++) writes.add(Workload.FinalReads.tried(Gens.op(WRITE, write(new Rec(k, FINAL_BASE + 3L * k + 1, null)))));
        return Gens.onThreads(List.of(0), Gens.seq(writes.toArray(Gen[]::new)));
    }

    /** The final read, once, on thread 0. */
    public static Gen finalRead() {
        return Gens.onThreads(List.of(0), Workload.FinalReads.tried(Gens.op(READ, new OpValue.Text(""))));
    }
}
