package io.faultline.harness.audit;

import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lifecycle audit's judgements on answers a broker could give. */
class TopicLifecycleAuditTest {
    private static final List<Node> NODES = List.of(new Node(1, "a", 9092), new Node(2, "b", 9092), new Node(3, "c", 9092));

    private static TopicDescription topic(int partitions, int replicas, boolean leaders) {
        List<TopicPartitionInfo> ps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            ps.add(new TopicPartitionInfo(p, leaders ? NODES.get(p % 3) : null, NODES.subList(0, replicas), NODES.subList(0, replicas)));
        }
        return new TopicDescription("t", false, ps);
    }

    @Test
    void anInvalidRequestMustBeRefusedWithKafkasErrorATimeoutDecidesNothing() throws Exception {
        var wait = java.time.Duration.ofSeconds(1);
        var exists = org.apache.kafka.common.errors.TopicExistsException.class;
        var right = TopicLifecycleAudit.judgeRefusal("t", "CreateTopics of an existing topic", exists,
                java.util.concurrent.CompletableFuture.failedFuture(
                        new org.apache.kafka.common.errors.TopicExistsException("exists")), wait);
        assertNull(right.finding());
        assertNull(right.note());
        var accepted = TopicLifecycleAudit.judgeRefusal("t", "CreateTopics of an existing topic", exists,
                java.util.concurrent.CompletableFuture.completedFuture(null), wait);
        assertEquals(TopicLifecycleAudit.REFUSAL, accepted.finding().kind());
        assertTrue(accepted.finding().explanation().contains("was accepted; Kafka refuses it (TopicExists)"));
        var other = TopicLifecycleAudit.judgeRefusal("t", "CreateTopics of an existing topic", exists,
                java.util.concurrent.CompletableFuture.failedFuture(new org.apache.kafka.common.errors.ApiException(
                        "The server response did not contain a reference to topic t")), wait);
        assertTrue(other.finding().explanation().contains("Kafka refuses it with TopicExists"), other.toString());
        var retriable = TopicLifecycleAudit.judgeRefusal("t", "CreateTopics of an existing topic", exists,
                java.util.concurrent.CompletableFuture.failedFuture(new org.apache.kafka.common.errors.TimeoutException("slow")), wait);
        assertNull(retriable.finding());
        assertTrue(retriable.note().contains("slow"));
        var never = TopicLifecycleAudit.judgeRefusal("t", "CreateTopics of an existing topic", exists,
                new java.util.concurrent.CompletableFuture<Void>(), java.time.Duration.ofMillis(10));
        assertNull(never.finding());
        assertTrue(never.note().contains("no answer"));
    }

    @Test
    void aGrownTopicMustHaveExactlyThePartitionsAskedForEachWithALeaderAndAFullReplicaSet() {
        assertEquals(List.of(), TopicLifecycleAudit.partitionShape("t", topic(3, 3, true), 3, 3));
        var tooMany = TopicLifecycleAudit.partitionShape("t", topic(5, 3, true), 3, 3);
        assertEquals(1, tooMany.size());
        assertTrue(tooMany.get(0).explanation().contains("shows 5 partitions"), tooMany.toString());
        assertEquals(1, TopicLifecycleAudit.partitionShape("t", topic(1, 3, true), 3, 3).size(), "too few");
        assertEquals(3, TopicLifecycleAudit.partitionShape("t", topic(3, 2, true), 3, 3).size(), "short replica sets");
        assertEquals(3, TopicLifecycleAudit.partitionShape("t", topic(3, 3, false), 3, 3).size(), "no leaders");
        assertEquals(1, TopicLifecycleAudit.partitionShape("t", null, 3, 3).size(), "unknown topic");
        assertEquals(TopicLifecycleAudit.PARTITION_COUNT, tooMany.get(0).kind());
    }

    @Test
    void aRecreatedOrTrimmedLogMustHoldExactlyWhatWasWrittenSince() {
        var tp = new TopicPartition("t", 0);
        var want = TopicLifecycleAudit.expected(0, 3, "new-", 0);
        assertEquals(List.of(new TopicLifecycleAudit.Rec(0, "new-0"), new TopicLifecycleAudit.Rec(1, "new-1"),
                new TopicLifecycleAudit.Rec(2, "new-2")), want);
        assertNull(TopicLifecycleAudit.expectLog(TopicLifecycleAudit.RECREATED_TOPIC, tp, want, want));

        // the old topic's records came back with the new name
        List<TopicLifecycleAudit.Rec> stale = new ArrayList<>(TopicLifecycleAudit.expected(0, 20, "old-", 0));
        stale.addAll(TopicLifecycleAudit.expected(20, 23, "new-", 0));
        var f = TopicLifecycleAudit.expectLog(TopicLifecycleAudit.RECREATED_TOPIC, tp, stale, want);
        assertEquals(TopicLifecycleAudit.RECREATED_TOPIC, f.kind());
        assertTrue(f.explanation().contains("23 records"), f.explanation());

        // a trimmed log that still starts at 0, or one that lost its last record
        var trimmed = TopicLifecycleAudit.expected(25, 43, "trim-", 25);
        assertEquals("trim-25", trimmed.get(0).value());
        assertEquals(18, trimmed.size());
        assertTrue(TopicLifecycleAudit.expectLog(TopicLifecycleAudit.DELETE_RECORDS, tp,
                TopicLifecycleAudit.expected(0, 43, "trim-", 0), trimmed) != null);
        assertTrue(TopicLifecycleAudit.expectLog(TopicLifecycleAudit.DELETE_RECORDS, tp, trimmed.subList(0, 17), trimmed) != null);
        assertTrue(TopicLifecycleAudit.expectLog(TopicLifecycleAudit.DELETE_RECORDS, tp, List.of(), trimmed)
                .explanation().contains("no record"));
    }

    @Test
    void lifecycleFindingsJoinTheAuditReportAndItsCheck() {
        var base = new ApiAudit.Report(3, 12, 3, 0, List.of(), List.of(), 0);
        var joined = base.with(new TopicLifecycleAudit.Result(4, List.of(new ApiAudit.Finding(TopicLifecycleAudit.PARTITION_COUNT,
                "t", "shows 5 partitions")), List.of("group configs not audited")));
        assertEquals(4, joined.lifecycleSteps());
        var check = ApiAudit.toCheck(joined);
        assertEquals(io.faultline.checker.Verdict.INVALID, check.verdict());
        assertEquals(1L, check.count(TopicLifecycleAudit.PARTITION_COUNT));
        assertEquals(io.faultline.checker.Verdict.VALID,
                ApiAudit.toCheck(new ApiAudit.Report(0, 0, 0, 4, List.of(), List.of(), 0)).verdict(), "lifecycle steps alone are an audit");
    }
}
