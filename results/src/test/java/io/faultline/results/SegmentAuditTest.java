package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SegmentAuditTest {
    /** A v2 batch header (no records needed: the audit reads headers) holding offsets base..base+count-1. */
    private static byte[] batch(long base, int count, int bodyBytes) {
        int length = 49 + bodyBytes;
        ByteBuffer b = ByteBuffer.allocate(12 + length);
        b.putLong(base).putInt(length).putInt(0).put((byte) 2).putInt(0).putShort((short) 0).putInt(count - 1);
        return b.array();
    }

    /** A v2 batch header of {@code count} offsets whose records' timestamps are all {@code timestamp}. */
    private static byte[] batchAt(long base, int count, long timestamp) {
        ByteBuffer b = ByteBuffer.wrap(batch(base, count, 10));
        b.putLong(27, timestamp).putLong(35, timestamp); // firstTimestamp, maxTimestamp
        return b.array();
    }

    /** A v2 batch header of {@code count} offsets written in leader epoch {@code epoch}. */
    private static byte[] batchInEpoch(long base, int count, int epoch) {
        ByteBuffer b = ByteBuffer.wrap(batch(base, count, 10));
        b.putInt(12, epoch); // partitionLeaderEpoch
        return b.array();
    }

    private static byte[] segment(long... baseAndCounts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < baseAndCounts.length; i += 2) out.writeBytes(batch(baseAndCounts[i], (int) baseAndCounts[i + 1], 10));
        return out.toByteArray();
    }

    private static byte[] index(long segmentBase, long... offsetAndPosition) {
        ByteBuffer b = ByteBuffer.allocate(8 * (offsetAndPosition.length / 2) + 16); // and preallocated zeros
        for (int i = 0; i < offsetAndPosition.length; i += 2) b.putInt((int) (offsetAndPosition[i] - segmentBase)).putInt((int) offsetAndPosition[i + 1]);
        return b.array();
    }

    private static Path partition(Path nodes, String node, String name) throws Exception {
        Path dir = nodes.resolve(node).resolve("data").resolve("kafka").resolve(name);
        Files.createDirectories(dir);
        return dir;
    }

    private static void write(Path dir, long base, String ext, byte[] bytes) throws Exception {
        Files.write(dir.resolve(String.format("%020d.%s", base, ext)), bytes);
    }

    @Test
    void denseWellNamedSegmentsWithTrueIndexesPass(@TempDir Path nodes) throws Exception {
        Path p = partition(nodes, "n1", "fl-0-0");
        int second = batch(0, 3, 10).length;
        write(p, 0, "log", segment(0, 3, 3, 2));
        write(p, 0, "index", index(0, 0, 0, 4, second)); // (offset 4 is in the second batch, 3..4)
        byte[] torn = new byte[40];
        torn[3] = 7;
        ByteArrayOutputStream last = new ByteArrayOutputStream();
        last.writeBytes(segment(5, 1));
        last.writeBytes(torn); // the newest segment may end torn
        write(p, 5, "log", last.toByteArray());
        partition(nodes, "n1", "__consumer_offsets-3"); // internal: not judged
        CheckResult r = SegmentAudit.check(nodes);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(1, r.stats().get("partition-replicas"));
        assertEquals(2, r.stats().get("segments"));
    }

    @Test
    void holesMisnamedSegmentsEarlierTornSegmentsAndFalseIndexEntriesAreFound(@TempDir Path nodes) throws Exception {
        Path gap = partition(nodes, "n1", "fl-1-0");
        write(gap, 0, "log", segment(0, 3, 4, 1)); // offset 3 missing inside the segment
        Path between = partition(nodes, "n2", "fl-1-0");
        write(between, 0, "log", segment(0, 3));
        write(between, 5, "log", segment(5, 1)); // 3 and 4 missing between segments
        Path misnamed = partition(nodes, "n3", "fl-1-0");
        write(misnamed, 0, "log", segment(0, 3));
        write(misnamed, 2, "log", segment(3, 2));
        Path torn = partition(nodes, "n1", "fl-2-0");
        ByteArrayOutputStream t = new ByteArrayOutputStream();
        t.writeBytes(segment(0, 2));
        t.writeBytes(new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 1});
        write(torn, 0, "log", t.toByteArray());
        write(torn, 2, "log", segment(2, 1));
        Path index = partition(nodes, "n2", "fl-2-0");
        write(index, 0, "log", segment(0, 3, 3, 2));
        write(index, 0, "index", index(0, 4, 0)); // offset 4 is not in the batch at byte 0 (0..2)
        CheckResult r = SegmentAudit.check(nodes);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals(2L, r.count(SegmentAudit.GAP), r::toString);
        assertEquals(1L, r.count(SegmentAudit.MISNAMED), r::toString);
        assertEquals(1L, r.count(SegmentAudit.TORN), r::toString);
        assertEquals(1L, r.count(SegmentAudit.INDEX), r::toString);
        assertTrue(r.examples(SegmentAudit.INDEX).get(0).explanation().contains("batch of offsets 0..2"), r.toString());
    }

    @Test
    void oldMessageFormatsAndEmptyDirectoriesAreNotJudged(@TempDir Path nodes) throws Exception {
        Path old = partition(nodes, "n1", "fl-0-0");
        byte[] v1 = batch(0, 1, 10);
        v1[16] = 1;
        write(old, 0, "log", v1);
        assertNull(SegmentAudit.check(nodes));
        // Kafka 0.10's v1 messages are often shorter than a v2 batch header: three of 34 bytes in each of two
        // segments, with an index entry, must not read as torn segments or false index entries
        ByteBuffer small = ByteBuffer.allocate(3 * 34);
        for (int i = 0; i < 3; i++) small.putLong(i).putInt(22).putInt(0).put((byte) 1).put(new byte[17]);
        write(old, 0, "log", small.array());
        write(old, 0, "index", index(0, 1, 34));
        ByteBuffer later = ByteBuffer.wrap(small.array().clone());
        for (int i = 0; i < 3; i++) later.putLong(i * 34, 3 + i);
        write(old, 3, "log", later.array());
        assertNull(SegmentAudit.check(nodes), "old formats are not judged, whatever their messages' sizes");
        assertNull(SegmentAudit.check(nodes.resolve("absent")));
    }

    @Test
    void aCompactedTopicMayHaveGapsAndSegmentsStartingPastTheirNames(@TempDir Path nodes) throws Exception {
        Path p = partition(nodes, "n1", "fl-kv-0");
        write(p, 0, "log", segment(2, 1, 5, 2)); // 0, 1, 3, 4 compacted away
        write(p, 7, "log", segment(9, 1));
        assertEquals(Verdict.INVALID, SegmentAudit.check(nodes).verdict(), "dense logs are the rule");
        CheckResult r = SegmentAudit.check(nodes, dir -> dir.contains("-kv-"));
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
    }

    @Test
    void whereTheTopicsSegmentMsIsKnownASegmentMustHaveRolledBeforeABatchFarPastItsFirst(@TempDir Path nodes) throws Exception {
        Path p = partition(nodes, "n1", "fl7-0-0");
        ByteArrayOutputStream rolled = new ByteArrayOutputStream();
        rolled.writeBytes(batchAt(0, 1, 1_000));
        rolled.writeBytes(batchAt(1, 1, 900)); // an older timestamp (another producer) is no reason to roll
        rolled.writeBytes(batchAt(2, 1, 4_000)); // 3 s past the first: within Kafka's own bound
        write(p, 0, "log", rolled.toByteArray());
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        kept.writeBytes(batchAt(3, 1, 10_000));
        kept.writeBytes(batchAt(4, 1, 16_000));
        kept.writeBytes(batchAt(5, 1, 70_000)); // a minute on: this segment never rolled
        write(p, 3, "log", kept.toByteArray());
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes).verdict(), "segment.ms not known: no roll rule");
        CheckResult r = SegmentAudit.check(nodes, dir -> false, dir -> dir.equals("fl7-0-0") ? 3_000 : -1);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(SegmentAudit.NOT_ROLLED), r::toString);
        String why = r.examples().get(SegmentAudit.NOT_ROLLED).get(0).explanation();
        assertTrue(why.contains("00000000000000000003.log: the batch at offset 5 is 60000 ms past") && why.contains("segment.ms is 3000"), why);
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes, dir -> true, dir -> 3_000).verdict(),
                "compaction merges segments: a compacted topic has no roll rule");
    }

    /** A segment of batches of one offset each, from {@code base}, at the given timestamps. */
    private static byte[] timedSegment(long base, long... timestamps) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < timestamps.length; i++) out.writeBytes(batchAt(base + i, 1, timestamps[i]));
        return out.toByteArray();
    }

    private static byte[] timeIndex(long segmentBase, long... timestampAndOffset) {
        ByteBuffer b = ByteBuffer.allocate(12 * (timestampAndOffset.length / 2) + 24); // and preallocated zeros
        for (int i = 0; i < timestampAndOffset.length; i += 2) {
            b.putLong(timestampAndOffset[i]).putInt((int) (timestampAndOffset[i + 1] - segmentBase));
        }
        return b.array();
    }

    @Test
    void aTimeIndexEntryMustNameAnOffsetOfItsSegmentAndATimestampItsBatchesReached(@TempDir Path nodes) throws Exception {
        Path fine = partition(nodes, "n1", "fl-0-0");
        write(fine, 10, "log", timedSegment(10, 1000, 900, 1500, 1400));
        write(fine, 10, "timeindex", timeIndex(10, 1000, 10, 1500, 12, 1500, 13)); // largest so far, at its offset
        write(fine, 14, "log", timedSegment(14, 2000));
        write(fine, 14, "timeindex", new byte[36]); // an empty active segment's preallocated file
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes).verdict());

        Path stale = partition(nodes, "n2", "fl-0-0");
        write(stale, 10, "log", timedSegment(10, 1000, 900)); // truncated after offset 11
        write(stale, 10, "timeindex", timeIndex(10, 1000, 10, 1500, 12)); // the entry of a cut batch stayed
        Path future = partition(nodes, "n3", "fl-0-0");
        write(future, 10, "log", timedSegment(10, 1000, 900, 1500));
        write(future, 10, "timeindex", timeIndex(10, 1600, 11));
        Path backwards = partition(nodes, "n1", "fl-1-0");
        write(backwards, 0, "log", timedSegment(0, 1000, 1100, 1200));
        write(backwards, 0, "timeindex", timeIndex(0, 1200, 2, 1100, 1));
        CheckResult r = SegmentAudit.check(nodes);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals(3L, r.count(SegmentAudit.TIME_INDEX), r::toString);
        String all = r.examples(SegmentAudit.TIME_INDEX).toString();
        assertTrue(all.contains("offset 12) names an offset the segment does not hold (offsets 10..11)"), all);
        assertTrue(all.contains("claims a timestamp no batch up to that offset has (the largest is 1000)"), all);
        assertTrue(all.contains("goes back from the entry before it"), all);
    }

    @Test
    void aSegmentFollowedByAnotherWasRolledForOneOfKafkasCauses(@TempDir Path nodes) throws Exception {
        var rule = new SegmentAudit.RollRule(3_000, 1 << 20, 1024); // indexes of 128 and 85 entries
        Path p = partition(nodes, "n1", "fl7-0-0");
        // a segment per couple of batches, 0.1 s apart: rolled for nothing, again and again
        for (int k = 0; k < SegmentAudit.MIN_EARLY_ROLLS + 1; k++) write(p, 2L * k, "log", timedSegment(2L * k, 1_000 + 200L * k, 1_100 + 200L * k));
        // another replica with two such rolls only: batches created long before they were appended can do that
        Path few = partition(nodes, "n2", "fl7-0-0");
        write(few, 0, "log", timedSegment(0, 1_000, 1_500));
        write(few, 2, "log", timedSegment(2, 1_600, 1_700));
        write(few, 4, "log", timedSegment(4, 1_800));
        CheckResult r = SegmentAudit.checkWithRules(nodes, dir -> false, dir -> rule);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(1L, r.count(SegmentAudit.ROLLED_EARLY), "one finding, for the replica that does it at every turn: " + r);
        String why = r.examples().get(SegmentAudit.ROLLED_EARLY).get(0).explanation();
        assertTrue(why.contains("node n1") && why.contains("00000000000000000000.log was rolled without cause")
                && why.contains("2 batches") && why.contains("and " + (SegmentAudit.MIN_EARLY_ROLLS - 1) + " more segments"), why);
        deleteTree(p);
        assertEquals(Verdict.VALID, SegmentAudit.checkWithRules(nodes, dir -> false, dir -> rule).verdict(), "two early rolls alone");
        Files.createDirectories(p);
        for (int k = 0; k < SegmentAudit.MIN_EARLY_ROLLS + 1; k++) write(p, 2L * k, "log", timedSegment(2L * k, 1_000 + 200L * k, 1_100 + 200L * k));
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes, dir -> false, dir -> 3_000).verdict(),
                "the index size not known: no early-roll rule");
        assertEquals(Verdict.VALID, SegmentAudit.checkWithRules(nodes, dir -> true, dir -> rule).verdict(), "compacted");
    }

    @Test
    void nearMissRollsDueByTimeSizeOrAFullIndexAreNotFindings(@TempDir Path nodes) throws Exception {
        var rule = new SegmentAudit.RollRule(3_000, 1 << 20, 1024);
        Path byTime = partition(nodes, "n1", "fl7-0-0");
        write(byTime, 0, "log", timedSegment(0, 1_000));
        write(byTime, 1, "log", timedSegment(1, 2_000, 4_001)); // the append that rolled may have reached 3.001 s on
        Path byIndex = partition(nodes, "n1", "fl7-1-0");
        long[] many = new long[83]; // enough batches to have filled the time index (85 entries less the margin)
        for (int i = 0; i < many.length; i++) many[i] = 1_000 + i;
        write(byIndex, 0, "log", timedSegment(0, many));
        write(byIndex, 83, "log", timedSegment(83, 1_100));
        Path bySize = partition(nodes, "n1", "fl7-2-0");
        write(bySize, 0, "log", timedSegment(0, 1_000, 1_001));
        write(bySize, 2, "log", timedSegment(2, 1_002));
        var tiny = new SegmentAudit.RollRule(3_000, 100, 1024); // segment.bytes smaller than the two segments
        CheckResult r = SegmentAudit.checkWithRules(nodes, dir -> false, dir -> dir.equals("fl7-2-0") ? tiny : rule);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
    }

    @Test
    void theLeaderEpochCacheMustAgreeWithTheEpochsTheBatchesWereWrittenIn(@TempDir Path nodes) throws Exception {
        Path p = partition(nodes, "n1", "fl7-1-0");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        log.writeBytes(batchInEpoch(0, 2, 0));
        log.writeBytes(batchInEpoch(2, 3, 0));
        log.writeBytes(batchInEpoch(5, 1, 2)); // epoch 1 led and wrote nothing
        log.writeBytes(batchInEpoch(6, 4, 3));
        write(p, 0, "log", log.toByteArray());
        Path cache = p.resolve("leader-epoch-checkpoint");
        Files.writeString(cache, "0\n3\n0 0\n2 5\n3 6\n");
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes).verdict());
        Files.writeString(cache, "0\n4\n0 2\n1 5\n2 5\n3 6\n4 10\n"); // the log start moved to 2; epochs 1 and 4 empty
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes).verdict(), "an epoch that wrote nothing and a moved start are fine");
        Files.writeString(cache, "0\n2\n0 0\n3 6\n"); // epoch 2's start never recorded
        CheckResult r = SegmentAudit.check(nodes);
        assertEquals(1L, r.count(SegmentAudit.EPOCH), r::toString);
        String why = r.examples().get(SegmentAudit.EPOCH).get(0).explanation();
        assertTrue(why.contains("the batch of offsets 5..5 was written in leader epoch 2, but leader-epoch-checkpoint gives epoch 0"), why);
        Files.writeString(cache, "0\n3\n0 0\n3 5\n2 6\n");
        assertTrue(SegmentAudit.check(nodes).examples().get(SegmentAudit.EPOCH).get(0).explanation().contains("does not follow"));
        Files.writeString(cache, "0\n0\n");
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes).verdict(), "an empty file: Kafka writes it lazily");
        Files.writeString(cache, "not a checkpoint");
        assertEquals(Verdict.VALID, SegmentAudit.check(nodes).verdict(), "an unreadable file is not judged");
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var walk = java.nio.file.Files.walk(dir)) {
            for (Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) java.nio.file.Files.delete(f);
        }
    }
}
