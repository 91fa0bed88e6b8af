package io.faultline.harness.audit;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The seek audit's targets and its judgement of the first record a seek returns. */
class SeekAuditTest {
    private static final TopicPartition P = new TopicPartition("t", 0);

    private static List<ApiAudit.Read> log(int from, int count) {
        List<ApiAudit.Read> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(new ApiAudit.Read(from + i, 1000L + 10L * i));
        return out;
    }

    @Test
    void aSeekMustReturnTheRecordAtItsOffsetFirst() {
        var log = log(5, 100); // offsets 5..104, e.g. after DeleteRecords
        assertNull(SeekAudit.judge(P, log, 40, 40, 1350));
        var earlier = SeekAudit.judge(P, log, 40, 32, 1270); // handed back the start of the batch holding 40
        assertEquals(SeekAudit.SEEK_READ, earlier.kind());
        assertTrue(earlier.explanation().contains("seeked to offset 40 was first given offset 32"), earlier.explanation());
        assertTrue(SeekAudit.judge(P, log, 40, 41, 1360).explanation().contains("has offset 40 (timestamp 1350) there"));
        // the right offset with another record's timestamp is another record
        assertTrue(SeekAudit.judge(P, log, 40, 40, 9999) != null);
        // a target in a gap (a transaction marker, a compacted record): the next record the log holds
        var gappy = new ArrayList<>(log);
        gappy.removeIf(r -> r.offset() == 40);
        assertNull(SeekAudit.judge(P, gappy, 40, 41, 1360));
        assertNull(SeekAudit.judge(P, log, 500, 500, 1), "past what was read: not judged");
    }

    @Test
    void theRoundsSeekTheEndsThenSpreadAndRandomRecords() {
        var log = log(0, 600);
        Random random = new Random(3);
        Set<Long> targets = new HashSet<>();
        for (int round = 0; round < SeekAudit.SEEKS_PER_PARTITION; round++) targets.add(SeekAudit.target(log, round, random));
        assertTrue(targets.contains(0L) && targets.contains(599L), targets.toString());
        assertTrue(targets.size() >= SeekAudit.SEEKS_PER_PARTITION - 1, "distinct places: " + targets);
        assertTrue(targets.stream().allMatch(t -> t >= 0 && t < 600));
    }
}
