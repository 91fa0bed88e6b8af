package io.faultline.harness.audit;

import io.faultline.checker.Verdict;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The audit's judgements, on logs and answers made up here (the Docker-backed test asks a real broker). */
class ApiAuditTest {
    private static final TopicPartition P = new TopicPartition("t", 0);
    // timestamps out of order, as several producers' batches interleave: 10, 30, 20, 30, 50
    private static final List<ApiAudit.Read> LOG = List.of(new ApiAudit.Read(0, 10), new ApiAudit.Read(1, 30),
            new ApiAudit.Read(2, 20), new ApiAudit.Read(3, 30), new ApiAudit.Read(4, 50));

    @Test
    void theAnswerIsTheFirstRecordInOffsetOrderAtOrAfterTheTarget() {
        assertEquals(1, ApiAudit.expected(LOG, 20).offset(), "offset 1 (30) comes before offset 2 (20)");
        assertEquals(1, ApiAudit.expected(LOG, 30).offset());
        assertEquals(4, ApiAudit.expected(LOG, 31).offset());
        assertEquals(0, ApiAudit.expected(LOG, 0).offset());
        assertNull(ApiAudit.expected(LOG, 51));
    }

    @Test
    void aLookupIsJudgedByOffsetAndTimestampAndNothingPastTheEndIsRight() {
        assertNull(ApiAudit.timeLookup(P, LOG, 21, new OffsetAndTimestamp(1, 30)));
        assertNull(ApiAudit.timeLookup(P, LOG, 51, null));
        var wrongOffset = ApiAudit.timeLookup(P, LOG, 21, new OffsetAndTimestamp(3, 30));
        assertEquals(ApiAudit.TIME_LOOKUP, wrongOffset.kind());
        assertTrue(wrongOffset.explanation().contains("answered offset 3 (timestamp 30); the log read from its beginning says"
                + " offset 1 (timestamp 30)"), wrongOffset.explanation());
        assertTrue(ApiAudit.timeLookup(P, LOG, 21, null).explanation().contains("answered nothing"));
        assertTrue(ApiAudit.timeLookup(P, LOG, 51, new OffsetAndTimestamp(4, 50)).explanation().contains("says nothing"));
        assertTrue(ApiAudit.timeLookup(P, LOG, 50, new OffsetAndTimestamp(4, 49)) != null, "the timestamp must be the record's");
    }

    @Test
    void targetsAreARecordsTimestampOneBeforeAnotherTheFirstAndPastTheLast() {
        Random r = new Random(1);
        assertTrue(LOG.stream().anyMatch(x -> x.timestamp() == ApiAudit.target(LOG, 0, r)));
        assertTrue(LOG.stream().anyMatch(x -> x.timestamp() - 1 == ApiAudit.target(LOG, 1, r)));
        assertEquals(10, ApiAudit.target(LOG, 2, r));
        assertEquals(51, ApiAudit.target(LOG, 3, r));
        // then spread over the log in offset order: a long log is asked about along its whole length
        List<ApiAudit.Read> longLog = new java.util.ArrayList<>();
        for (int i = 0; i < 1200; i++) longLog.add(new ApiAudit.Read(i, 1000L + i));
        java.util.TreeSet<Long> spread = new java.util.TreeSet<>();
        for (int round = 4; round < ApiAudit.LOOKUPS_PER_PARTITION; round++) spread.add(ApiAudit.target(longLog, round, r));
        assertEquals(ApiAudit.LOOKUPS_PER_PARTITION - 4, spread.size(), spread.toString());
        assertEquals(1050L, spread.first(), "the first twelfth's middle record: " + spread);
        assertEquals(1000L + 1150 - 1, spread.last(), "the last twelfth's, one millisecond before it: " + spread);
        for (int round = 4; round < ApiAudit.LOOKUPS_PER_PARTITION; round++) {
            long t = ApiAudit.target(LOG, round, r);
            assertTrue(LOG.stream().anyMatch(x -> x.timestamp() == t || x.timestamp() - 1 == t), "a short log too: " + t);
        }
    }

    @Test
    void theLargestTimestampsAnswerIsARecordCarryingIt() {
        assertNull(ApiAudit.maxTimestamp(P, LOG, 4, 50));
        List<ApiAudit.Read> tied = List.of(new ApiAudit.Read(0, 10), new ApiAudit.Read(1, 30), new ApiAudit.Read(2, 30));
        assertNull(ApiAudit.maxTimestamp(P, tied, 2, 30), "with ties, any record carrying it");
        var lastOfBatch = ApiAudit.maxTimestamp(P, LOG, 3, 50); // an offset whose record is not the one with it
        assertEquals(ApiAudit.TIME_LOOKUP, lastOfBatch.kind());
        assertTrue(lastOfBatch.explanation().contains("answered offset 3 (timestamp 50), whose record has timestamp 30;"
                + " the largest timestamp in the log is 50, first at offset 4"), lastOfBatch.explanation());
        assertTrue(ApiAudit.maxTimestamp(P, LOG, 9, 50).explanation().contains("has no record"));
        assertNotNull(ApiAudit.maxTimestamp(P, LOG, 4, 49), "the timestamp must be the largest");
        assertNull(ApiAudit.maxTimestamp(P, List.of(), -1, -1), "an empty log is not judged");
    }

    @Test
    void theLatestOffsetMustBeOnePastTheLastRecord() {
        assertTrue(ApiAudit.latest(P, LOG, 5L).isEmpty());
        var f = ApiAudit.latest(P, LOG, 7L);
        assertEquals(1, f.size());
        assertTrue(f.get(0).explanation().contains("answered 7 but the last record read from the beginning up to it is at offset 4"));
        assertTrue(ApiAudit.latest(P, List.of(), 0L).isEmpty());
    }

    @Test
    void aTopicConfigMustComeBackAsCreated() {
        var config = new Config(List.of(new ConfigEntry("segment.ms", "3000"), new ConfigEntry("index.interval.bytes", "4096")));
        var f = ApiAudit.topicConfig("t", config, Map.of("segment.ms", "3000", "index.interval.bytes", "256"));
        assertEquals(1, f.size());
        assertEquals("created with index.interval.bytes=256, DescribeConfigs answered index.interval.bytes=4096", f.get(0).explanation());
        assertTrue(ApiAudit.topicConfig("t", config, Map.of("segment.ms", "3000")).isEmpty());
    }

    @Test
    void theReportBecomesACheckThatIsInvalidOnAnyFindingAndAbsentWhenNothingWasAudited() {
        var clean = ApiAudit.toCheck(new ApiAudit.Report(3, 12, 3, 0, List.of(), List.of(), 0));
        assertEquals(Verdict.VALID, clean.verdict());
        assertEquals(12, clean.stats().get("time-lookups"));
        var bad = ApiAudit.toCheck(new ApiAudit.Report(3, 12, 3, 0,
                List.of(new ApiAudit.Finding(ApiAudit.TIME_LOOKUP, "t-0", "x"), new ApiAudit.Finding(ApiAudit.TIME_LOOKUP, "t-1", "y")), List.of(), 5));
        assertEquals(Verdict.INVALID, bad.verdict());
        assertEquals(2L, bad.count(ApiAudit.TIME_LOOKUP));
        assertEquals("t-0: x", bad.examples(ApiAudit.TIME_LOOKUP).get(0).explanation());
        assertNull(ApiAudit.toCheck(new ApiAudit.Report(0, 0, 0, 0, List.of(), List.of("no workload partition to audit"), 0)));
    }

    @Test
    void aGroupWithCommittedOffsetsMustBeListedAndLive() {
        assertTrue(ApiAudit.groupListing("g", 3, List.of("g", "h"), org.apache.kafka.common.GroupState.EMPTY).isEmpty());
        var unlisted = ApiAudit.groupListing("g", 3, List.of("h"), org.apache.kafka.common.GroupState.STABLE);
        assertEquals(1, unlisted.size());
        assertTrue(unlisted.get(0).explanation().contains("ListGroups lists only 1 groups, not it"), unlisted.toString());
        var dead = ApiAudit.groupListing("g", 3, List.of("g"), org.apache.kafka.common.GroupState.DEAD);
        assertEquals(ApiAudit.GROUP_LISTING, dead.get(0).kind());
    }

    @Test
    void aCommittedOffsetPastThePartitionsEndIsAFinding() {
        var p = new org.apache.kafka.common.TopicPartition("t", 0);
        assertNull(ApiAudit.committedOffset("g", p, 40, 40), "a consumer that read everything commits the end");
        assertNull(ApiAudit.committedOffset("g", p, 12, 40));
        var f = ApiAudit.committedOffset("g", p, 41, 40);
        assertEquals(ApiAudit.COMMITTED_OFFSET, f.kind());
        assertTrue(f.explanation().contains("committed offset 41, past the partition's latest offset 40"), f.explanation());
    }
}
