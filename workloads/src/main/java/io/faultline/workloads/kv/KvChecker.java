package io.faultline.workloads.kv;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Checker;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Judges the compacted topic's final read against the writes, by what compaction promises (Kafka's documentation: "at
 * least the last known value for each message key" is retained, offsets never change):
 * <ul>
 *   <li>{@value #LOST_LATEST}: for each key, the read holds a record of that key at or after the highest offset an
 *       acknowledged write of it got (compaction removes a record only when a later one of its key exists);</li>
 *   <li>{@value #INCONSISTENT}: an offset the read holds carries the key and value whose write was acknowledged at it;</li>
 *   <li>{@value #UNEXPECTED}: every record read was written by someone (acknowledged or indeterminate);</li>
 *   <li>{@value #ABORTED_READ}: no record read is one whose transaction was aborted (the read is read_committed);</li>
 *   <li>{@value #NONMONOTONIC}: offsets increase along the read;</li>
 *   <li>{@value #NEVER_COMPACTED} (liveness): after at least {@value #COMPACTION_AFTER_SECONDS} s of writes and
 *       {@value #COMPACTION_AFTER_WRITES} acknowledged ones over a few keys, some overwritten record is gone (Kafka's
 *       cleaner looks every 15 s; with a segment every 2 s and a dirty ratio of 0.01 it always has work).</li>
 * </ul>
 * A tombstone (a write of a null value) is a key's record like any other, and removes the key's older records; once
 * its delete.retention.ms has passed compaction may remove it too: a key deleted last (or by a tombstone of unknown
 * outcome) may then be missing altogether, but never read with an older value.
 * Without durability in the settings (acks below all, unclean elections), a lost latest value is allowed. No final
 * read, or no acknowledged write: unknown.
 */
public final class KvChecker implements Checker {
    public static final String LOST_LATEST = "kv-lost-latest", INCONSISTENT = "kv-inconsistent", UNEXPECTED = "kv-unexpected",
            NONMONOTONIC = "kv-nonmonotonic", NEVER_COMPACTED = "kv-never-compacted", ABORTED_READ = "kv-aborted-read";
    static final int COMPACTION_AFTER_SECONDS = 60, COMPACTION_AFTER_WRITES = 200;
    private static final int MAX_EXAMPLES = 8;
    private final boolean durable;

    public KvChecker(boolean durable) {
        this.durable = durable;
    }

    @Override
    public String name() {
        return "compaction";
    }

    @Override
    public CheckResult analyze(List<Op> history) {
        Map<Integer, Op> pending = new HashMap<>();
        long firstAck = Long.MAX_VALUE, lastAck = Long.MIN_VALUE;
        Map<Long, KvOps.Rec> ackedAt = new HashMap<>();
        Map<Integer, Long> latestAcked = new TreeMap<>();
        Set<String> written = new HashSet<>(), aborted = new HashSet<>();
        Set<Integer> uncertainTombstone = new HashSet<>(); // keys with a tombstone write of unknown outcome
        List<KvOps.Rec> read = null;
        for (Op op : history) {
            if (op.process() < 0 || !KvOps.ALL.contains(op.f())) continue;
            if (op.type() == OpType.INVOKE) {
                pending.put(op.process(), op);
                if (KvOps.WRITE.equals(op.f())) {
                    KvOps.Rec r = KvOps.parseWrite(op.value());
                    written.add(r.key() + " " + KvOps.asRead(r.value()));
                }
                continue;
            }
            pending.remove(op.process());
            if (op.type() == OpType.INFO) noteTombstone(op, uncertainTombstone);
            if (op.type() == OpType.FAIL && KvOps.WRITE.equals(op.f()) && KvOps.ABORTED.equals(op.error())) {
                KvOps.Rec r = KvOps.parseWrite(op.value());
                if (r.value() > 0) aborted.add(r.key() + " " + r.value()); // a tombstone reads as any other of its key
            }
            if (op.type() != OpType.OK) continue;
            if (KvOps.WRITE.equals(op.f())) {
                KvOps.Rec r = KvOps.parseWrite(op.value());
                if (r.offset() == null) continue;
                ackedAt.put(r.offset(), r);
                latestAcked.merge(r.key(), r.offset(), Math::max);
                firstAck = Math.min(firstAck, op.time());
                lastAck = Math.max(lastAck, op.time());
            } else {
                read = KvOps.parseRead(op.value());
            }
        }
        for (Op op : pending.values()) noteTombstone(op, uncertainTombstone); // never completed: indeterminate too
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String k : List.of(LOST_LATEST, INCONSISTENT, UNEXPECTED, NONMONOTONIC, NEVER_COMPACTED, ABORTED_READ)) counts.put(k, 0L);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("acknowledged-writes", (long) ackedAt.size());
        stats.put("keys", (long) latestAcked.size());
        stats.put("aborted-writes", (long) aborted.size());
        if (read == null || ackedAt.isEmpty()) {
            return new CheckResult(name(), Verdict.UNKNOWN, counts, Set.of(), Map.of(), stats,
                    read == null ? "no final read of the compacted topic completed" : "no write to the compacted topic was acknowledged");
        }
        stats.put("records-read", (long) read.size());
        Map<String, List<Example>> examples = new TreeMap<>();
        Map<Integer, Long> lastRead = new HashMap<>();
        long previous = -1;
        for (KvOps.Rec r : read) {
            if (r.offset() <= previous) add(counts, examples, NONMONOTONIC, "offset " + r.offset() + " read after " + previous);
            previous = Math.max(previous, r.offset());
            if (aborted.contains(r.key() + " " + r.value())) {
                add(counts, examples, ABORTED_READ, "offset " + r.offset() + " holds key " + r.key() + " value " + r.value()
                        + ", whose transaction was aborted");
            } else if (!written.contains(r.key() + " " + r.value())) {
                add(counts, examples, UNEXPECTED, "offset " + r.offset() + " holds key " + r.key() + " value " + r.value() + ", which nobody wrote");
            }
            KvOps.Rec acked = ackedAt.get(r.offset());
            if (acked != null && (acked.key() != r.key() || KvOps.asRead(acked.value()) != r.value())) {
                add(counts, examples, INCONSISTENT, "offset " + r.offset() + " holds key " + r.key() + " value " + r.value()
                        + ", but the write of key " + acked.key() + " value " + acked.value() + " was acknowledged there");
            }
            lastRead.merge(r.key(), r.offset(), Math::max);
        }
        latestAcked.forEach((key, offset) -> {
            Long last = lastRead.get(key);
            // a key deleted last may be gone altogether once its tombstone's delete.retention.ms has passed
            boolean mayBeGone = ackedAt.get(offset).value() < 0 || uncertainTombstone.contains(key);
            if (last == null ? !mayBeGone : last < offset) {
                add(counts, examples, LOST_LATEST, "key " + key + ": a write acknowledged at offset " + offset + ", but the read holds "
                        + (last == null ? "no record of the key" : "its last record at offset " + last));
            }
        });
        Set<Long> readOffsets = new HashSet<>();
        for (KvOps.Rec r : read) readOffsets.add(r.offset());
        long removed = ackedAt.keySet().stream().filter(o -> !readOffsets.contains(o)).count();
        stats.put("acknowledged-records-compacted-away", removed);
        boolean longEnough = ackedAt.size() >= COMPACTION_AFTER_WRITES
                && lastAck - firstAck >= COMPACTION_AFTER_SECONDS * 1_000_000_000L && ackedAt.size() > 2L * latestAcked.size();
        if (longEnough && removed == 0) {
            add(counts, examples, NEVER_COMPACTED, ackedAt.size() + " acknowledged writes over " + latestAcked.size() + " keys in "
                    + (lastAck - firstAck) / 1_000_000_000L + " s, and the read after the heal still holds every one of them");
        }
        Set<String> allowed = durable ? Set.of() : Set.of(LOST_LATEST);
        boolean invalid = counts.entrySet().stream().anyMatch(e -> e.getValue() > 0 && !allowed.contains(e.getKey()));
        return new CheckResult(name(), invalid ? Verdict.INVALID : Verdict.VALID, counts, allowed, examples, stats, null);
    }

    /** A tombstone write of unknown outcome: its key may be gone from the read. */
    private static void noteTombstone(Op op, Set<Integer> keys) {
        if (!KvOps.WRITE.equals(op.f())) return;
        KvOps.Rec r = KvOps.parseWrite(op.value());
        if (r.value() < 0) keys.add(r.key());
    }

    private static void add(Map<String, Long> counts, Map<String, List<Example>> examples, String kind, String why) {
        counts.merge(kind, 1L, Long::sum);
        List<Example> list = examples.computeIfAbsent(kind, k -> new ArrayList<>());
        if (list.size() < MAX_EXAMPLES) list.add(new Example(kind, null, why, List.of()));
    }
}
