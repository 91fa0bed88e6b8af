package io.faultline.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each replica's final log read from segment files, and the offsets where replicas diverge. */
class ReplicaLogsTest {
    @TempDir
    Path tmp;

    @Test
    void aRealKafkaSegmentReadsAsContiguousOffsetsWithTheWorkloadsValues() throws Exception {
        Path segment = Path.of(ReplicaLogsTest.class.getResource("/segments/kafka-4.4-partition.log").toURI());
        List<ReplicaLogs.Entry> entries = new ArrayList<>();
        ReplicaLogs.readSegment(segment, entries);
        assertTrue(entries.size() > 50, "records in a 13.7 kB segment of Kafka 4.4: " + entries.size());
        for (int i = 0; i < entries.size(); i++) {
            assertEquals(i, entries.get(i).offset(), "contiguous offsets from 0");
            assertTrue(entries.get(i).value().matches("\\d+"), "the queue workload's values: " + entries.get(i));
            if (i > 0) assertTrue(entries.get(i).leaderEpoch() >= entries.get(i - 1).leaderEpoch(), "epochs never go back");
        }
    }

    @Test
    void divergingReplicasAreColouredWhereTheyDifferAndAShorterReplicaIsNot() throws Exception {
        // n1 kept epoch 0's 10 and 11 at offsets 2-3; n2 truncated and took epoch 1's 20 and 21 there; n3 is behind
        write("n1", batch(0, 0, "1", "2"), batch(2, 0, "10", "11"));
        write("n2", batch(0, 0, "1", "2"), batch(2, 1, "20", "21"), batch(4, 1, "22"));
        write("n3", batch(0, 0, "1"));
        Path nodes = tmp.resolve("nodes");
        assertEquals("fl9-3-0", ReplicaLogs.partitionOfKey(nodes, 3));
        Map<String, List<ReplicaLogs.Entry>> logs = ReplicaLogs.read(nodes, "fl9-3-0");
        assertEquals(List.of("n1", "n2", "n3"), List.copyOf(logs.keySet()));
        assertEquals("20", logs.get("n2").get(2).value());
        assertEquals(1, logs.get("n2").get(2).leaderEpoch());

        String html = ReplicaLogs.html(3, "fl9-3-0", logs);
        assertTrue(html.contains("2 offsets where the replicas' logs differ"), html);
        assertTrue(html.contains("<tr class=\"diverge\"><td class=\"num\">2</td><td>10 (0)</td><td>20 (1)</td>"), html);
        assertFalse(html.contains("<tr class=\"diverge\"><td class=\"num\">4</td>"),
                "offset 4 exists only on n2: n1 and n3 are shorter, not diverging");
        assertTrue(html.contains("Log ends: n1 4, n2 5, n3 1"), html);
    }

    @Test
    void agreeingReplicasSayTheyAgreeAndMissingDataGivesNothing() throws Exception {
        write("n1", batch(0, 0, "1", "2"));
        write("n2", batch(0, 0, "1", "2"));
        String html = ReplicaLogs.html(3, "fl9-3-0", ReplicaLogs.read(tmp.resolve("nodes"), "fl9-3-0"));
        assertTrue(html.contains("the replicas' logs agree") && !html.contains("<table"), html);
        assertTrue(ReplicaLogs.read(tmp.resolve("none"), "fl9-3-0").isEmpty());
    }

    @Test
    void replicasThatDifferBelowBothHighWatermarksAreADivergence() throws Exception {
        // n1 kept epoch 0's 10 and 11 at offsets 2-3 and follows n2, whose high watermark passed them (KIP-279's case)
        write("n1", batch(0, 0, "1", "2"), batch(2, 0, "10", "11"), batch(4, 2, "22"));
        write("n2", batch(0, 0, "1", "2"), batch(2, 1, "20", "21"), batch(4, 2, "22"));
        highWatermark("n1", 5);
        highWatermark("n2", 5);
        var r = ReplicaAgreement.check(tmp.resolve("nodes"));
        assertEquals(io.faultline.checker.Verdict.INVALID, r.verdict());
        assertEquals(2L, r.count(ReplicaAgreement.DIVERGENCE), "offsets 2 and 3");
        assertTrue(r.examples(ReplicaAgreement.DIVERGENCE).get(0).explanation()
                .contains("fl9-3-0 offset 2: n1 has 10 (leader epoch 0), n2 has 20 (leader epoch 1)"), r.toString());
    }

    @Test
    void anUncommittedTailAboveAHighWatermarkIsNoDivergence() throws Exception {
        // n1 still holds an unacknowledged tail at 2-3 that it will truncate once it fetches: its HW is 2
        write("n1", batch(0, 0, "1", "2"), batch(2, 0, "10", "11"));
        write("n2", batch(0, 0, "1", "2"), batch(2, 1, "20", "21"));
        highWatermark("n1", 2);
        highWatermark("n2", 4);
        var r = ReplicaAgreement.check(tmp.resolve("nodes"));
        assertEquals(io.faultline.checker.Verdict.VALID, r.verdict());
        assertEquals(0L, r.count(ReplicaAgreement.DIVERGENCE));
        assertEquals(2L, r.stats().get("offsets-compared"), "offsets 0 and 1 once, for the pair n1, n2");
    }

    @Test
    void afterRecoveryALaggingCheckpointStillBoundsTheComparisonByTheCommittedOffsets() throws Exception {
        // n1's checkpoint stayed at 2 (a follower whose high watermark never moved), yet both were back in the ISR:
        // offsets 2-3 are committed by n2's high watermark, so n1's different values there are a divergence
        write("n1", batch(0, 0, "1", "2"), batch(2, 0, "10", "11"));
        write("n2", batch(0, 0, "1", "2"), batch(2, 1, "20", "21"));
        highWatermark("n1", 2);
        highWatermark("n2", 4);
        var recovered = ReplicaAgreement.check(tmp.resolve("nodes"), Set.of("fl9-3-0"));
        assertEquals(io.faultline.checker.Verdict.INVALID, recovered.verdict());
        assertEquals(2L, recovered.count(ReplicaAgreement.DIVERGENCE));
        assertTrue(recovered.examples(ReplicaAgreement.DIVERGENCE).get(0).explanation().contains("committed"), recovered.toString());
        assertEquals(io.faultline.checker.Verdict.VALID, ReplicaAgreement.check(tmp.resolve("nodes"), Set.of("other-0")).verdict(),
                "a partition the recovery check did not see recovered is compared below the lower high watermark");
    }

    @Test
    void afterRecoveryAGapInsideAReplicasLogIsADivergenceButAShortTailIsNot() throws Exception {
        write("n1", batch(0, 0, "1", "2"), batch(3, 0, "4", "5"));
        write("n2", batch(0, 0, "1", "2", "3", "4", "5"));
        write("n3", batch(0, 0, "1", "2", "3"));
        highWatermark("n1", 5);
        highWatermark("n2", 5);
        highWatermark("n3", 3);
        var r = ReplicaAgreement.check(tmp.resolve("nodes"), Set.of("fl9-3-0"));
        assertEquals(io.faultline.checker.Verdict.INVALID, r.verdict());
        assertEquals(1L, r.count(ReplicaAgreement.DIVERGENCE), "offset 2 only: n3's log simply ends at 2");
        assertTrue(r.examples(ReplicaAgreement.DIVERGENCE).get(0).explanation()
                .contains("offset 2: n2 has 3 (leader epoch 0), n1 has nothing there though its log goes on to offset 4"), r.toString());
    }

    @Test
    void recordsBelowTheLogStartAreNotComparedTheyAreNoLongerServed() throws Exception {
        // both replicas trimmed to 4 (DeleteRecords); their segments below it still hold offsets 2-3, which differ
        write("n1", batch(0, 0, "1", "2"), batch(2, 0, "10", "11"), batch(4, 2, "22", "23"));
        write("n2", batch(0, 0, "1", "2"), batch(2, 1, "20", "21"), batch(4, 2, "22", "23"));
        highWatermark("n1", 6);
        highWatermark("n2", 6);
        assertEquals(io.faultline.checker.Verdict.INVALID, ReplicaAgreement.check(tmp.resolve("nodes"), Set.of("fl9-3-0")).verdict(),
                "without log starts the dead records count");
        logStart("n1", 4);
        logStart("n2", 3);
        var r = ReplicaAgreement.check(tmp.resolve("nodes"), Set.of("fl9-3-0"));
        assertEquals(io.faultline.checker.Verdict.VALID, r.verdict(), r.toString());
        assertEquals(2L, r.stats().get("offsets-compared"), "offsets 4 and 5: from the higher log start");
    }

    @Test
    void withoutHighWatermarksOrASecondReplicaNothingIsJudged() throws Exception {
        write("n1", batch(0, 0, "1", "2"));
        write("n2", batch(0, 0, "1", "3"));
        assertEquals(null, ReplicaAgreement.check(tmp.resolve("nodes")), "no checkpoint: nothing known to be committed");
        highWatermark("n1", 2);
        assertEquals(null, ReplicaAgreement.check(tmp.resolve("nodes")), "one replica with a high watermark");
        assertEquals(null, ReplicaAgreement.check(tmp.resolve("absent")));
    }

    private void logStart(String node, long start) throws Exception {
        Files.writeString(tmp.resolve("nodes").resolve(node).resolve("data/kafka/log-start-offset-checkpoint"),
                "0\n1\nfl9-3 0 " + start + "\n");
    }

    private void highWatermark(String node, long hw) throws Exception {
        Files.writeString(tmp.resolve("nodes").resolve(node).resolve("data/kafka/replication-offset-checkpoint"),
                "0\n2\n__consumer_offsets 0 7\nfl9-3 0 " + hw + "\n");
    }

    private void write(String node, byte[]... batches) throws Exception {
        Path dir = tmp.resolve("nodes").resolve(node).resolve("data/kafka/fl9-3-0");
        Files.createDirectories(dir);
        var out = new ByteArrayOutputStream();
        for (byte[] b : batches) out.write(b);
        out.write(new byte[40]); // a preallocated, zero-filled tail ends the scan
        Files.write(dir.resolve("00000000000000000000.log"), out.toByteArray());
    }

    /** An uncompressed record batch of format v2 (CRC left zero: the reader does not check it). */
    private static byte[] batch(long baseOffset, int epoch, String... values) {
        var records = new ByteArrayOutputStream();
        for (int i = 0; i < values.length; i++) {
            var r = new ByteArrayOutputStream();
            r.write(0); // attributes
            varint(r, 0); // timestamp delta
            varint(r, i); // offset delta
            varint(r, -1); // no key
            byte[] v = values[i].getBytes(StandardCharsets.UTF_8);
            varint(r, v.length);
            r.writeBytes(v);
            varint(r, 0); // no headers
            varint(records, r.size());
            records.writeBytes(r.toByteArray());
        }
        ByteBuffer b = ByteBuffer.allocate(61 + records.size());
        b.putLong(baseOffset).putInt(49 + records.size()).putInt(epoch).put((byte) 2).putInt(0).putShort((short) 0)
                .putInt(values.length - 1).putLong(0).putLong(0).putLong(-1).putShort((short) -1).putInt(-1)
                .putInt(values.length).put(records.toByteArray());
        return b.array();
    }

    private static void varint(ByteArrayOutputStream out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & ~0x7f) != 0) {
            out.write((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }
}
