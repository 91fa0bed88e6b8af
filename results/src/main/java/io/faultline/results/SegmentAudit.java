package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The replicas' files as the brokers left them at the stop, checked against Kafka's on-disk format (every broker that
 * writes Kafka's log format keeps these, whatever its code): for each non-internal partition on each node,
 * <ul>
 *   <li>{@value #GAP}: a log without compaction is dense: batch after batch and segment after segment, each starts
 *       one past where the one before ended;</li>
 *   <li>{@value #MISNAMED}: a segment's file is named after its base offset, the first offset it holds;</li>
 *   <li>{@value #TORN}: only the newest segment may end in a torn or partly written batch (a crash's tail, which the
 *       broker repairs when it loads the log);</li>
 *   <li>{@value #INDEX}: each offset index entry (relative offset, position) points at the start of a batch that holds
 *       that offset, and entries increase in both;</li>
 *   <li>{@value #TIME_INDEX}: each time index entry (timestamp, relative offset) names an offset the segment holds and a
 *       timestamp no batch up to that offset exceeds, and entries never go back in either ({@link #checkTimeIndex});</li>
 *   <li>{@value #NOT_ROLLED}: where the topic's segment.ms is known, no segment holds a batch far past its first batch's
 *       timestamp ({@link #checkRolled});</li>
 *   <li>{@value #ROLLED_EARLY}: where the topic's segment.ms and index size are known, a segment was rolled only when
 *       one of Kafka's roll conditions held ({@link #checkRolledEarly});</li>
 *   <li>{@value #EPOCH}: the leader epoch cache agrees with the epochs the batches were written in ({@link #checkEpochs}).</li>
 * </ul>
 * A partition in a format older than v2 (Kafka before 0.11) is not judged. Calibrated on the 186 nightly and txn-queue
 * runs stored on 6 December (19 of Kafka 4.4, 167 of broker-impl, under disk faults among others): findings only in
 * two runs of broker-impl mutants that miscompute index entries. A run with power faults is not judged (a lost
 * unsynced write may leave a file short).
 */
public final class SegmentAudit {
    public static final String CHECKER = "segment-audit";
    public static final String GAP = "segment-gap", MISNAMED = "segment-misnamed", TORN = "torn-segment", INDEX = "index-entry",
            TIME_INDEX = "time-index-entry", NOT_ROLLED = "segment-not-rolled", ROLLED_EARLY = "segment-rolled-early", EPOCH = "epoch-cache";
    private static final int BATCH_HEADER = 61, MAX_EXAMPLES = 10;

    private SegmentAudit() {}

    /** One batch's place in its file: position, base and last offset, its largest timestamp and its leader epoch. */
    record Batch(int position, long base, long last, long maxTimestamp, int epoch) {}

    /**
     * What the topic's roll rule is, where known: segment.ms, segment.bytes and segment.index.bytes (each -1 when not
     * known; the early-roll rule needs all three).
     */
    public record RollRule(long segmentMs, long segmentBytes, long indexBytes) {
        public static final RollRule UNKNOWN = new RollRule(-1, -1, -1);
    }

    /** The batches of one segment file, where its whole batches end, its size, and whether it holds only v2 batches. */
    record Segment(long name, List<Batch> batches, int wholeUpTo, int size, boolean tornTail, boolean v2) {}

    /** The check over every node's data directory; null when there is nothing to judge. */
    public static CheckResult check(Path nodesDir) {
        return check(nodesDir, dir -> false);
    }

    /**
     * As above; for the partitions whose directory name {@code compacted} accepts (topics created with
     * cleanup.policy=compact), gaps and segments starting past their names are allowed: compaction leaves both.
     */
    public static CheckResult check(Path nodesDir, java.util.function.Predicate<String> compacted) {
        return check(nodesDir, compacted, dir -> -1);
    }

    /**
     * As above; {@code segmentMs}: the segment.ms the partition's topic was created with (by its directory name), or
     * -1 when not known, for the {@value #NOT_ROLLED} rule.
     */
    public static CheckResult check(Path nodesDir, java.util.function.Predicate<String> compacted,
                                    java.util.function.ToLongFunction<String> segmentMs) {
        return checkWithRules(nodesDir, compacted, dir -> new RollRule(segmentMs.applyAsLong(dir), -1, -1));
    }

    /** As above, with each partition directory's whole roll rule (both roll rules). */
    public static CheckResult checkWithRules(Path nodesDir, java.util.function.Predicate<String> compacted,
                                             java.util.function.Function<String, RollRule> rules) {
        try {
            return audit(nodesDir, compacted, rules);
        } catch (RuntimeException e) {
            return CheckResult.failure(CHECKER, e);
        }
    }

    private static CheckResult audit(Path nodesDir, java.util.function.Predicate<String> compacted,
                                     java.util.function.Function<String, RollRule> rules) {
        if (nodesDir == null || !Files.isDirectory(nodesDir)) return null;
        Map<String, Long> counts = new TreeMap<>();
        List<Example> examples = new ArrayList<>();
        int partitions = 0, segments = 0;
        for (Path node : LogExcerpts.list(nodesDir)) {
            for (Path dir : partitionDirs(node.resolve("data"))) {
                List<String[]> found = new ArrayList<>();
                String name = dir.getFileName().toString();
                int n = auditPartition(dir, compacted.test(name), rules.apply(name), found);
                if (n < 0) continue;
                partitions++;
                segments += n;
                for (String[] f : found) {
                    counts.merge(f[0], 1L, Long::sum);
                    if (examples.size() < MAX_EXAMPLES) {
                        examples.add(new Example(f[0], null, "node " + node.getFileName() + ", " + dir.getFileName() + ": " + f[1], List.of()));
                    }
                }
            }
        }
        if (partitions == 0) return null;
        Map<String, List<Example>> byKind = new TreeMap<>();
        for (Example e : examples) byKind.computeIfAbsent(e.category(), k -> new ArrayList<>()).add(e);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("partition-replicas", partitions);
        stats.put("segments", segments);
        return new CheckResult(CHECKER, counts.isEmpty() ? Verdict.VALID : Verdict.INVALID, counts, Set.of(), byKind, stats, null);
    }

    /** Partition directories (name-N) of non-internal topics, not those a broker is deleting or moving. */
    static List<Path> partitionDirs(Path data) {
        if (!Files.isDirectory(data)) return List.of();
        try (Stream<Path> s = Files.walk(data, 3)) {
            return s.filter(Files::isDirectory).filter(p -> {
                String n = p.getFileName().toString();
                return n.matches(".+-[0-9]+") && !n.startsWith("__") && !p.equals(data);
            }).sorted().toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** Adds what is wrong with one replica's files to {@code out}; returns its segments, or -1 when not judged. */
    static int auditPartition(Path dir, boolean compacted, long segmentMs, List<String[]> out) {
        return auditPartition(dir, compacted, new RollRule(segmentMs, -1, -1), out);
    }

    /** As above, with the topic's roll rule. */
    static int auditPartition(Path dir, boolean compacted, RollRule rule, List<String[]> out) {
        long segmentMs = rule == null ? -1 : rule.segmentMs();
        List<Path> logs = LogExcerpts.list(dir).stream().filter(p -> p.getFileName().toString().matches("[0-9]{20}\\.log")).sorted().toList();
        List<Segment> segments = new ArrayList<>();
        for (Path log : logs) {
            Segment s = read(log);
            if (s == null) return -1;
            if (!s.v2()) return -1;
            segments.add(s);
        }
        Long previousLast = null;
        List<String> early = new ArrayList<>();
        for (int i = 0; i < segments.size(); i++) {
            Segment s = segments.get(i);
            String file = String.format("%020d.log", s.name());
            if (s.tornTail() && i < segments.size() - 1) {
                out.add(new String[] {TORN, file + " ends in a partly written batch at byte " + s.wholeUpTo() + " of " + s.size()
                        + ", yet a newer segment follows"});
            }
            List<Batch> bs = s.batches();
            String unrolled = segmentMs > 0 && !compacted ? checkRolled(file, bs, segmentMs) : null; // compaction merges segments
            if (unrolled != null) out.add(new String[] {NOT_ROLLED, unrolled});
            if (rule != null && !compacted && i + 1 < segments.size()) {
                String e = checkRolledEarly(dir, s, segments.get(i + 1), rule);
                if (e != null) early.add(e);
            }
            String timeIndex = checkTimeIndex(dir.resolve(String.format("%020d.timeindex", s.name())), s);
            if (timeIndex != null) out.add(new String[] {TIME_INDEX, timeIndex});
            if (compacted) {
                String index = checkIndex(dir.resolve(String.format("%020d.index", s.name())), s);
                if (index != null) out.add(new String[] {INDEX, index});
                continue;
            }
            for (int b = 1; b < bs.size(); b++) {
                if (bs.get(b).base() != bs.get(b - 1).last() + 1) {
                    out.add(new String[] {GAP, file + ": the batch at byte " + bs.get(b).position() + " starts at offset " + bs.get(b).base()
                            + ", the one before it ends at " + bs.get(b - 1).last()});
                    break;
                }
            }
            if (!bs.isEmpty() && bs.get(0).base() != s.name()) {
                out.add(new String[] {MISNAMED, file + " holds offsets from " + bs.get(0).base()});
            }
            long first = bs.isEmpty() ? s.name() : bs.get(0).base();
            if (previousLast != null && first != previousLast + 1) {
                out.add(new String[] {GAP, file + " starts at offset " + first + ", the segment before it ends at " + previousLast});
            }
            if (!bs.isEmpty()) previousLast = bs.get(bs.size() - 1).last();
            String index = checkIndex(dir.resolve(String.format("%020d.index", s.name())), s);
            if (index != null) out.add(new String[] {INDEX, index});
        }
        String epochs = checkEpochs(dir.resolve("leader-epoch-checkpoint"), segments);
        if (epochs != null) out.add(new String[] {EPOCH, epochs});
        // The append that rolled a segment may be gone from the next one: a replica truncates an unreplicated tail when
        // the leader changes, and then batches with older (producer-set) timestamps follow. So a due roll can look
        // early now and then; a broker that ignores its roll rule does it at every turn.
        if (early.size() >= MIN_EARLY_ROLLS) {
            out.add(new String[] {ROLLED_EARLY, early.get(0) + (early.size() > 1 ? " (and " + (early.size() - 1) + " more segments of this replica)" : "")});
        }
        return segments.size();
    }

    /**
     * The replica's leader epoch cache (KIP-101), as Kafka keeps it in leader-epoch-checkpoint ("0", the count, then
     * "epoch startOffset" lines), against the batches it describes: entries increase in both, and every batch at or
     * after the first entry was written in the epoch of the last entry at or before its base offset. A follower that
     * truncates by this cache after a leader change cuts at the wrong offset when it disagrees with the log. Batches
     * below the first entry (the log start moved up past them) and a file that cannot be parsed are not judged.
     * Calibrated on 130 stored runs (Kafka 4.4 and broker-impl, nightly, txn-queue, mutants): no disagreement.
     */
    static String checkEpochs(Path checkpoint, List<Segment> segments) {
        List<long[]> entries = new ArrayList<>();
        try {
            if (!Files.isRegularFile(checkpoint)) return null;
            List<String> lines = Files.readAllLines(checkpoint);
            int count = Integer.parseInt(lines.get(1).strip());
            for (String l : lines.subList(2, 2 + count)) {
                String[] f = l.strip().split("\\s+");
                entries.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
            }
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
        String file = checkpoint.getFileName().toString();
        for (int i = 1; i < entries.size(); i++) {
            long[] a = entries.get(i - 1), b = entries.get(i);
            if (b[0] <= a[0] || b[1] < a[1]) {
                return file + ": entry (epoch " + b[0] + ", offset " + b[1] + ") does not follow (epoch " + a[0] + ", offset " + a[1] + ")";
            }
        }
        // An empty file is not judged: Kafka 4.4 writes the cache lazily (with the log's flushes, since 3.8), and left it
        // empty beside a follower's batches after DeleteRecords, a kill and a restart (ci74, 7 December 2026).
        if (entries.isEmpty()) return null;
        int k = -1;
        for (Segment s : segments) {
            for (Batch b : s.batches()) {
                while (k + 1 < entries.size() && entries.get(k + 1)[1] <= b.base()) k++;
                if (k < 0 || entries.get(k)[0] == b.epoch()) continue;
                return String.format("%020d.log: the batch of offsets %d..%d was written in leader epoch %d, but %s gives epoch %d"
                        + " from offset %d", s.name(), b.base(), b.last(), b.epoch(), file, entries.get(k)[0], entries.get(k)[1]);
            }
        }
        return null;
    }

    /**
     * Kafka rolls a segment before appending a batch whose largest timestamp is more than segment.ms past that of the
     * segment's first batch (KIP-33: time-based rolling by record timestamps, leaders and followers alike), so no
     * segment holds a batch that far past its first. Allowed here: twice segment.ms, a margin over Kafka's exact bound
     * (measured 6 December 2026 on 3,800 segments of 8 Kafka 4.4 runs and 5,500 of broker-impl's: never past 3,000 ms
     * at segment.ms=3000). A broker that opened a log before it knew the topic's config kept 1 GB, 7-day segments
     * for that replica (spans of 50-130 s): the config it accepted was not honoured. Returns what is wrong, or null.
     */
    static String checkRolled(String file, List<Batch> bs, long segmentMs) {
        if (bs.size() < 2 || bs.get(0).maxTimestamp() < 0) return null;
        long first = bs.get(0).maxTimestamp();
        for (Batch b : bs.subList(1, bs.size())) {
            if (b.maxTimestamp() - first > 2 * segmentMs) {
                return file + ": the batch at offset " + b.base() + " is " + (b.maxTimestamp() - first)
                        + " ms past the segment's first batch, yet the topic's segment.ms is " + segmentMs
                        + " (the segment should have rolled before it)";
            }
        }
        return null;
    }

    /** How many rolls without cause one replica must show before they are a finding (see {@link #auditPartition}). */
    static final int MIN_EARLY_ROLLS = 5;

    /**
     * Kafka rolls the active segment before an append only when one of its conditions holds (KIP-33 and the log's own
     * limits): the append would take the segment past segment.bytes, the append's largest timestamp is more than
     * segment.ms past the segment's first batch's, the offset or time index is full (segment.index.bytes), or the
     * offsets would overflow. A segment followed by another was therefore rolled for one of them; what the next
     * segment holds bounds the append that made the roll from above (its size and its largest timestamp), so none
     * of these holding even by those bounds is a roll without cause: a broker that rolls too often (a segment per
     * append: many small files, indexes and open handles). Only judged where all three settings are known, for v2
     * batches with timestamps; an empty segment is not judged. Calibrated 6 December 2026 on 85 stored runs (9 of
     * Kafka, 76 of broker-impl with mutants among them): findings only in the two runs of a mutant whose segments
     * roll at every append (about 21,000 each). Since the evening of 6 December one replica must show at least
     * {@link #MIN_EARLY_ROLLS} (a clean run can show one: the append that triggered a due roll may be truncated
     * away when the leader changes, and the next segment then holds only batches with earlier timestamps). Returns what is wrong, or null.
     */
    static String checkRolledEarly(Path dir, Segment s, Segment next, RollRule rule) {
        if (rule.segmentMs() <= 0 || rule.segmentBytes() <= 0 || rule.indexBytes() <= 0) return null;
        if (s.batches().isEmpty() || next.batches().isEmpty()) return null;
        long first = s.batches().get(0).maxTimestamp();
        if (first < 0) return null;
        long nextLargest = next.batches().stream().mapToLong(Batch::maxTimestamp).max().orElse(-1);
        if (nextLargest < 0 || nextLargest - first > rule.segmentMs()) return null; // due by time
        if ((long) s.wholeUpTo() + next.wholeUpTo() > rule.segmentBytes()) return null; // due by size
        long lastOffset = next.batches().get(next.batches().size() - 1).last();
        if (lastOffset - s.name() > Integer.MAX_VALUE) return null; // offsets would overflow
        // A full index: an index takes at most one entry per batch (a rolled time index one more), so a segment of
        // fewer batches than the smaller index holds less two cannot have filled either. Counted from the batches, not
        // the index files: a broker may rebuild those when it recovers, at another interval.
        long fewestToFill = Math.min(rule.indexBytes() / 8, rule.indexBytes() / 12) - 2;
        if (s.batches().size() >= fewestToFill) return null;
        return String.format("%020d.log was rolled without cause: %d bytes (segment.bytes %d), its first batch's timestamp"
                        + " at most %d ms before the next segment's latest (segment.ms %d), %d batches (too few to fill an"
                        + " index of segment.index.bytes %d)", s.name(), s.wholeUpTo(), rule.segmentBytes(), nextLargest - first,
                rule.segmentMs(), s.batches().size(), rule.indexBytes());
    }

    /** What is wrong with a segment's offset index, or null. Zero entries past the first are preallocated space. */
    static String checkIndex(Path index, Segment s) {
        byte[] bytes = readIndexFile(index);
        if (bytes == null) return null;
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        Map<Integer, Batch> byPosition = new TreeMap<>();
        for (Batch b : s.batches()) byPosition.put(b.position(), b);
        long lastOffset = -1;
        int lastPosition = -1;
        for (int k = 0; k + 8 <= bytes.length; k += 8) {
            int relative = buf.getInt(k), position = buf.getInt(k + 4);
            if (relative == 0 && position == 0 && (k > 0 || s.batches().isEmpty())) break;
            long offset = s.name() + relative;
            String name = index.getFileName() + " entry " + (k / 8) + " (offset " + offset + ", byte " + position + ")";
            if (k > 0 && (offset <= lastOffset || position <= lastPosition)) {
                return name + " does not come after the entry before it (offset " + lastOffset + ", byte " + lastPosition + ")";
            }
            Batch b = byPosition.get(position);
            if (b == null) return name + " points at no batch's start";
            if (offset < b.base() || offset > b.last()) {
                return name + " points at the batch of offsets " + b.base() + ".." + b.last();
            }
            lastOffset = offset;
            lastPosition = position;
        }
        return null;
    }

    /**
     * What is wrong with a segment's time index, or null. An entry is the largest timestamp seen so far and the offset
     * it was seen at (Kafka appends one every index interval and at a roll); zeros past the first entry are preallocated
     * space. A truncation must take the entries past the cut with it: one left behind names an offset the segment no
     * longer holds, or a timestamp of records that are gone, and offsetsForTimes answers from it.
     */
    static String checkTimeIndex(Path index, Segment s) {
        byte[] bytes = readIndexFile(index);
        if (bytes == null) return null;
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        List<Batch> bs = s.batches();
        long lastTimestamp = Long.MIN_VALUE, lastOffset = Long.MIN_VALUE;
        for (int k = 0; k + 12 <= bytes.length; k += 12) {
            long timestamp = buf.getLong(k);
            int relative = buf.getInt(k + 8);
            if (timestamp == 0 && relative == 0 && (k > 0 || bs.isEmpty())) break;
            long offset = s.name() + relative;
            String name = index.getFileName() + " entry " + (k / 12) + " (timestamp " + timestamp + ", offset " + offset + ")";
            if (k > 0 && (timestamp < lastTimestamp || offset < lastOffset)) {
                return name + " goes back from the entry before it (timestamp " + lastTimestamp + ", offset " + lastOffset + ")";
            }
            if (bs.isEmpty() || offset < bs.get(0).base() || offset > bs.get(bs.size() - 1).last()) {
                return name + " names an offset the segment does not hold (" + (bs.isEmpty() ? "it holds none"
                        : "offsets " + bs.get(0).base() + ".." + bs.get(bs.size() - 1).last()) + ")";
            }
            long largest = Long.MIN_VALUE;
            for (Batch b : bs) {
                if (b.base() > offset) break;
                largest = Math.max(largest, b.maxTimestamp());
            }
            if (timestamp > largest) {
                return name + " claims a timestamp no batch up to that offset has (the largest is " + largest + ")";
            }
            lastTimestamp = timestamp;
            lastOffset = offset;
        }
        return null;
    }

    /** An index file's bytes; null when there is none or it cannot be read (nothing to judge). */
    private static byte[] readIndexFile(Path index) {
        try {
            return Files.isRegularFile(index) ? Files.readAllBytes(index) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Reads a segment's batch headers; null when it cannot be read. */
    static Segment read(Path log) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(log);
        } catch (IOException | OutOfMemoryError e) {
            return null;
        }
        long name = Long.parseLong(log.getFileName().toString().substring(0, 20));
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        List<Batch> batches = new ArrayList<>();
        int pos = 0;
        boolean v2 = true;
        while (pos + 17 <= bytes.length) {
            // the magic byte first: a message of the old formats (v0, v1; Kafka before 0.11) may be shorter than a v2
            // batch header, and must not be read as a torn one
            long base = buf.getLong(pos);
            int length = buf.getInt(pos + 8);
            if (buf.get(pos + 16) != 2) {
                v2 = buf.get(pos + 16) == 0 && length == 0; // zeros (a zeroed tail, preallocated space) are no format
                break;
            }
            if (pos + BATCH_HEADER > bytes.length) break;
            if (length < BATCH_HEADER - 12 || pos + 12 + length > bytes.length) break;
            batches.add(new Batch(pos, base, base + buf.getInt(pos + 23), buf.getLong(pos + 35), buf.getInt(pos + 12)));
            pos += 12 + length;
        }
        boolean torn = false;
        for (int i = pos; i < bytes.length && !torn; i++) torn = bytes[i] != 0; // preallocated zeros are not a tear
        return new Segment(name, batches, pos, bytes.length, torn, v2);
    }
}
