package io.faultline.workloads.topics;

import io.faultline.checker.history.OpValue;
import io.faultline.checker.linear.TopicModel;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;
import io.faultline.workloads.generator.Invocation;

import java.util.ArrayList;
import java.util.List;

/**
 * The topics workload's operations: creation, deletion and CreatePartitions of a few scratch topics under faults,
 * and, after the heal, a description of each. Values are text, so the history writers need nothing new:
 * invoke and ok {@code "k create n"}, {@code "k delete"}, {@code "k grow n"}; {@code "k describe"}, ok
 * {@code "k describe n"} (0: no such topic).
 */
public final class TopicOps {
    public static final String CREATE = "topic-create", DELETE = "topic-delete", GROW = "topic-grow", DESCRIBE = "topic-describe";
    public static final java.util.Set<String> ALL = java.util.Set.of(CREATE, DELETE, GROW, DESCRIBE);
    /** Partition counts stay small: every partition is a log directory on every replica. */
    static final int MAX_PARTITIONS = 6;

    private TopicOps() {}

    /** One parsed value: the topic's key, and the partition count it asks for or was described with (null: none). */
    public record KeyValue(int key, Integer partitions) {
        public OpValue.Text text(String verb) {
            return new OpValue.Text(key + " " + verb + (partitions == null ? "" : " " + partitions));
        }

        /** Parses "k verb" or "k verb n"; throws IllegalArgumentException naming what is wrong. */
        public static KeyValue parse(OpValue value) {
            if (value instanceof OpValue.Text t) {
                String[] parts = t.text().trim().split(" ");
                try {
                    if (parts.length == 2) return new KeyValue(Integer.parseInt(parts[0]), null);
                    if (parts.length == 3) return new KeyValue(Integer.parseInt(parts[0]), Integer.parseInt(parts[2]));
                } catch (NumberFormatException bad) {
                    // one message below
                }
            }
            throw new IllegalArgumentException("not a topics value: " + value);
        }
    }

    /** The topic of key k: {@code prefix-topics-k} (not prefix-N, so nothing takes it for a queue key). */
    public static String topic(String prefix, int key) {
        return prefix + "-topics-" + key;
    }

    /** What an op asks, as the model's input. */
    static TopicModel.Op input(String f, KeyValue kv) {
        return switch (f) {
            case CREATE -> new TopicModel.Op.Create(kv.partitions());
            case DELETE -> new TopicModel.Op.Delete();
            case GROW -> new TopicModel.Op.Grow(kv.partitions());
            case DESCRIBE -> new TopicModel.Op.Describe();
            default -> throw new IllegalArgumentException("not a topics op: " + f);
        };
    }

    /** Creations, deletions and growths over {@code keys} topics: a topic keeps coming and going and growing. */
    public static Gen random(long seed, int keys) {
        if (keys < 1) throw new IllegalArgumentException("keys must be at least 1, got " + keys);
        return Gens.random(seed, rng -> {
            int key = rng.below(keys);
            int kind = rng.split(1).below(10);
            if (kind < 4) return Gens.op(CREATE, new KeyValue(key, 1 + rng.split(2).below(2)).text("create"));
            if (kind < 6) return Gens.op(DELETE, new KeyValue(key, null).text("delete"));
            return Gens.op(GROW, new KeyValue(key, 2 + rng.split(3).below(MAX_PARTITIONS - 1)).text("grow"));
        });
    }

    /**
     * After the heal, before the final reads: the creation (one partition) of a topic the main phase never touches, on
     * thread 0, so the reads judge at least one acknowledged creation. Tried like the other ops after the heal
     * ({@link Workload.FinalReads#ATTEMPTS} times while refused), each try a topic of its own (keys {@code keys},
     * {@code keys + 1}, ...): a creation tried again may find its first try done and be refused as existing.
     */
    public static Gen finalCreate(int keys) {
        List<Invocation> tries = new ArrayList<>();
        for (int i = 0; i < Workload.FinalReads.ATTEMPTS; i++) tries.add(Gens.op(CREATE, new KeyValue(keys + i, 1).text("create")));
        return Gens.onThreads(List.of(0), Gens.firstOk(tries, Workload.FinalReads.PAUSE_NANOS));
    }

    /** Final reads: every topic described once, on thread 0, after the heal, those {@link #finalCreate} tried too. */
    public static Gen finalReads(int keys) {
        List<Gen> reads = new ArrayList<>();
        for (int k = 0; k < keys + Workload.FinalReads.ATTEMPTS; k++) reads.add(Workload.FinalReads.tried(Gens.op(DESCRIBE, new KeyValue(k, null).text("describe"))));
        return Gens.onThreads(List.of(0), Gens.seq(reads.toArray(Gen[]::new)));
    }
}
