package io.faultline.workloads.offsets;

import io.faultline.checker.history.OpValue;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.workloads.generator.Invocation;

import java.util.ArrayList;
import java.util.List;

/**
 * The offsets workload's operations and their values in the history. Each register is a key k, stored as the
 * committed offset of one (group, partition) pair ({@link #group}, {@link #partition}). Values are text, so the
 * JSONL and EDN writers need nothing new:
 * <ul>
 *   <li>{@code write}: invoke and ok {@code "k v"} (commit offset v);</li>
 *   <li>{@code read}: invoke {@code "k"}, ok {@code "k v"} or {@code "k nil"} (no committed offset).</li>
 * </ul>
 */
public final class OffsetOps {
    public static final String WRITE = "write";
    public static final String READ = "read";
    /** Partitions per group: keys 2g and 2g+1 are partitions 0 and 1 of group g. */
    public static final int PARTITIONS = 2;
    /** Written values stay below this, so random draws rarely repeat and any value is a legal offset. */
    static final int MAX_VALUE = 1_000_000_000;

    private OffsetOps() {}

    /** One parsed value: the key and, when known, the offset (null: nothing committed, or not yet known). */
    public record KeyValue(int key, Long value) {
        public KeyValue {
            if (key < 0) throw new IllegalArgumentException("negative key " + key);
            if (value != null && value < 0) throw new IllegalArgumentException("negative offset " + value);
        }

        public OpValue.Text text() {
            return new OpValue.Text(value == null ? Integer.toString(key) : key + " " + value);
        }

        public OpValue.Text readResult() {
            return new OpValue.Text(key + " " + (value == null ? "nil" : value.toString()));
        }

        /** Parses "k", "k v" or "k nil"; throws IllegalArgumentException naming what is wrong. */
        public static KeyValue parse(OpValue value) {
            if (!(value instanceof OpValue.Text t)) {
                throw new IllegalArgumentException("not an offsets value: " + value);
            }
            String[] parts = t.text().trim().split(" ");
            try {
                int key = Integer.parseInt(parts[0]);
                if (parts.length == 1 || "nil".equals(parts[1])) return new KeyValue(key, null);
                if (parts.length == 2) return new KeyValue(key, Long.parseLong(parts[1]));
            } catch (NumberFormatException bad) {
                // fall through to the one message below
            }
            throw new IllegalArgumentException("not an offsets value: \"" + t.text() + "\"");
        }
    }

    public static int group(int key) {
        return key / PARTITIONS;
    }

    public static int partition(int key) {
        return key % PARTITIONS;
    }

    /** The register's name in verdicts: group/partition. */
    public static String keyName(String groupPrefix, int key) {
        return groupName(groupPrefix, key) + "/" + partition(key);
    }

    public static String groupName(String groupPrefix, int key) {
        return groupPrefix + "-g" + group(key);
    }

    /** Reads and writes in equal parts, uniform over {@code keys} registers, each write of a fresh random value. */
    public static Gen random(long seed, int keys) {
        if (keys < 1) throw new IllegalArgumentException("keys must be at least 1, got " + keys);
        return Gens.random(seed, rng -> {
            int key = rng.below(keys);
            if (rng.split(1).below(2) == 0) {
                return Gens.op(READ, new KeyValue(key, null).text());
            }
            return Gens.op(WRITE, new KeyValue(key, (long) rng.split(2).below(MAX_VALUE)).text());
        });
    }

    /** Final reads: every key once, in order, on thread 0 (after the heal, what stuck). */
    public static Gen finalReads(int keys) {
        List<Gen> reads = new ArrayList<>();
        for (int k = 0; k < keys; k++) reads.add(Workload.FinalReads.tried(Gens.op(READ, new KeyValue(k, null).text())));
        return Gens.onThreads(List.of(0), Gens.seq(reads.toArray(Gen[]::new)));
    }

    static Invocation template(String f, KeyValue kv) {
        return Gens.op(f, kv.text());
    }
}
