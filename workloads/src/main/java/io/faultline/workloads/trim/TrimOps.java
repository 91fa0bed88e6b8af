package io.faultline.workloads.trim;

import io.faultline.checker.history.OpValue;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The trimmed-log workload's operations, as text values:
 * <ul>
 *   <li>{@code trim-write}: invoke {@code "v"}, ok {@code "v o"} (o: the offset the broker gave it);</li>
 *   <li>{@code trim-delete}: invoke {@code "k"} (keep the client's last k acknowledged records, or the log's last k
 *       when the client has none of its own), completed as
 *       {@code "k o"} (DeleteRecords before offset o) and, when acknowledged, {@code "k o lw"} (the low watermark
 *       the broker answered);</li>
 *   <li>{@code trim-read} (during the run, at most {@link #READ_LIMIT} records) and {@code trim-final-read} (after
 *       the heal, to the end): invoke {@code ""}, ok {@code "start;o v,o v,..."}: the log start offset the broker
 *       answered and the records read from there.</li>
 * </ul>
 */
public final class TrimOps {
    public static final String WRITE = "trim-write", DELETE = "trim-delete", READ = "trim-read", FINAL_READ = "trim-final-read";
    public static final Set<String> ALL = Set.of(WRITE, DELETE, READ, FINAL_READ);
    /** The workload's topic is {@code prefix + TOPIC_SUFFIX}. */
    public static final String TOPIC_SUFFIX = "-trim";
    /** The most records a read during the run takes (the final read takes all). */
    public static final int READ_LIMIT = 200;

    private TrimOps() {}

    public record Write(long value, Long offset) {
        public OpValue.Text text() {
            return new OpValue.Text(value + (offset == null ? "" : " " + offset));
        }
    }

    /** @param offset DeleteRecords before it (null: the client had nothing to cut yet); lowWatermark: the answer */
    public record Delete(int keep, Long offset, Long lowWatermark) {
        public OpValue.Text text() {
            return new OpValue.Text(keep + (offset == null ? "" : " " + offset + (lowWatermark == null ? "" : " " + lowWatermark)));
        }
    }

    public record Rec(long offset, long value) {}

    /** @param start the log start offset the broker answered before the records were read */
    public record Read(long start, List<Rec> records) {
        public OpValue.Text text() {
            StringBuilder b = new StringBuilder().append(start).append(';');
            for (int i = 0; i < records.size(); i++) b.append(i == 0 ? "" : ",").append(records.get(i).offset()).append(' ').append(records.get(i).value());
            return new OpValue.Text(b.toString());
        }
    }

    public static Write parseWrite(OpValue v) {
        long[] f = numbers(v, 1, 2);
        return new Write(f[0], f.length == 2 ? f[1] : null);
    }

    public static Delete parseDelete(OpValue v) {
        long[] f = numbers(v, 1, 3);
        return new Delete((int) f[0], f.length >= 2 ? f[1] : null, f.length == 3 ? f[2] : null);
    }

    public static Read parseRead(OpValue v) {
        String t = text(v);
        int semi = t.indexOf(';');
        if (semi < 0) throw new IllegalArgumentException("not a trim read: \"" + t + "\"");
        List<Rec> recs = new ArrayList<>();
        String rest = t.substring(semi + 1);
        if (!rest.isBlank()) {
            for (String r : rest.split(",")) {
                String[] p = r.trim().split(" ");
                if (p.length != 2) throw new IllegalArgumentException("not a trim record: \"" + r + "\"");
                recs.add(new Rec(Long.parseLong(p[0]), Long.parseLong(p[1])));
            }
        }
        return new Read(Long.parseLong(t.substring(0, semi).trim()), recs);
    }

    private static String text(OpValue v) {
        if (!(v instanceof OpValue.Text t)) throw new IllegalArgumentException("not a trim value: " + v);
        return t.text();
    }

    private static long[] numbers(OpValue v, int min, int max) {
        String[] p = text(v).trim().split(" ");
        if (p.length < min || p.length > max) throw new IllegalArgumentException("not a trim value: \"" + text(v) + "\"");
        long[] out = new long[p.length];
        for (int i = 0; i < p.length; i++) out[i] = Long.parseLong(p[i]);
        return out;
    }

    /**
     * Mostly writes of values never written before, now and then a read from the log start, and about one op in ten
     * a DeleteRecords that keeps the client's last 0-9 acknowledged records: the log start keeps moving while the
     * faults run, through whole segments and into the middle of one.
     */
    public static Gen random(long seed) {
        long[] next = {0};
        return Gens.random(seed, rng -> {
            int draw = rng.below(10);
            if (draw == 0) return Gens.op(DELETE, new Delete(rng.below(10), null, null).text());
            if (draw <= 2) return Gens.op(READ, new OpValue.Text(""));
            return Gens.op(WRITE, new Write(++next[0], null).text());
        });
    }

    /** The final write's value: above any the main phase reaches. */
    static final long FINAL_VALUE = 1L << 50;

    /** After the heal, before the final read: one write, on thread 0, so the read judges at least one. */
    public static Gen finalWrite() {
        return Gens.onThreads(List.of(0), Workload.FinalReads.tried(Gens.op(WRITE, new Write(FINAL_VALUE, null).text())));
    }

    /**
     * After the final read, on thread 0: DeleteRecords keeping one record (the client's last acknowledged one, the
     * write after the heal; or, for a client opened since, as after the final drain's crash, the log's last), tried
     * while refused, so the healed cluster must still take a cut (and answer its low watermark). After
     * the read, so the read judges everything the run wrote; the same cut asked again is the same request.
     */
    public static Gen finalDelete() {
        return Gens.onThreads(List.of(0), Workload.FinalReads.tried(Gens.op(DELETE, new Delete(1, null, null).text())));
    }

    /** The final read, once, on thread 0. */
    public static Gen finalRead() {
        return Gens.onThreads(List.of(0), Workload.FinalReads.tried(Gens.op(FINAL_READ, new OpValue.Text(""))));
    }
}
