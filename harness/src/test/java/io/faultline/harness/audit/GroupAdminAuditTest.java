package io.faultline.harness.audit;

import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberAssignment;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The group admin audit's judgements on answers a broker could give. */
class GroupAdminAuditTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0), P1 = new TopicPartition("t", 1),
            P2 = new TopicPartition("t", 2);

    @Test
    void listedOffsetsMustBeExactlyTheOnesSetWithTheirMetadata() {
        var set = Map.of(P0, new OffsetAndMetadata(3, "a"), P2, new OffsetAndMetadata(7, "c"));
        assertNull(GroupAdminAudit.offsetsDiffer("g", set, Map.of(P0, new OffsetAndMetadata(3, "a"), P2, new OffsetAndMetadata(7, "c")), "now"));

        var wrongOffset = GroupAdminAudit.offsetsDiffer("g", set, Map.of(P0, new OffsetAndMetadata(4, "a"), P2, new OffsetAndMetadata(7, "c")), "now");
        assertEquals(GroupAdminAudit.GROUP_ADMIN, wrongOffset.kind());
        assertTrue(wrongOffset.explanation().contains("t-0 4 \"a\" instead of 3 \"a\""), wrongOffset.explanation());

        var lostMetadata = GroupAdminAudit.offsetsDiffer("g", set, Map.of(P0, new OffsetAndMetadata(3, ""), P2, new OffsetAndMetadata(7, "c")), "now");
        assertNotNull(lostMetadata);

        var missing = GroupAdminAudit.offsetsDiffer("g", set, Map.of(P2, new OffsetAndMetadata(7, "c")), "now");
        assertTrue(missing.explanation().contains("t-0 none instead of 3"), missing.explanation());

        // a deleted offset, or a deleted group's, must be gone
        var kept = GroupAdminAudit.offsetsDiffer("g", Map.of(), Map.of(P1, new OffsetAndMetadata(5, "b")), "after DeleteGroups");
        assertTrue(kept.explanation().contains("t-1 5 \"b\", which should be gone"), kept.explanation());
    }

    @Test
    void aConsumerMustStartWhereTheGroupCommitted() {
        var committed = Map.of(P0, new OffsetAndMetadata(3, "a"), P1, new OffsetAndMetadata(5, "b"));
        assertEquals(List.of(), GroupAdminAudit.firstReads("g", committed, Map.of(P0, 3L, P1, 5L)));
        var f = GroupAdminAudit.firstReads("g", committed, Map.of(P0, 0L, P1, 5L));
        assertEquals(1, f.size());
        assertTrue(f.get(0).explanation().contains("read t-0 from offset 0, not from its committed offset 3"), f.toString());
    }

    @Test
    void anActiveGroupIsStableWithItsMemberOwningEveryPartition() {
        Node node = new Node(1, "a", 9092);
        var owner = new MemberDescription("m", Optional.empty(), "c", "h", new MemberAssignment(Set.of(P0, P1, P2)),
                Optional.empty(), Optional.empty(), Optional.empty());
        var stable = new ConsumerGroupDescription("g", false, List.of(owner), "range", org.apache.kafka.common.GroupType.CLASSIC,
                GroupState.STABLE, node, Set.of(), Optional.empty(), Optional.empty());
        assertNull(GroupAdminAudit.activeDescription("g", stable, 3));

        var empty = new ConsumerGroupDescription("g", false, List.of(), "", org.apache.kafka.common.GroupType.CLASSIC,
                GroupState.EMPTY, node, Set.of(), Optional.empty(), Optional.empty());
        var f = GroupAdminAudit.activeDescription("g", empty, 3);
        assertTrue(f.explanation().contains("answers state Empty, 0 members owning 0 partitions"), f.explanation());

        var partly = new MemberDescription("m", Optional.empty(), "c", "h", new MemberAssignment(Set.of(P0)),
                Optional.empty(), Optional.empty(), Optional.empty());
        assertNotNull(GroupAdminAudit.activeDescription("g", new ConsumerGroupDescription("g", false, List.of(partly), "range",
                org.apache.kafka.common.GroupType.CLASSIC, GroupState.STABLE, node, Set.of(), Optional.empty(), Optional.empty()), 3));
        assertNotNull(GroupAdminAudit.activeDescription("g", null, 3));
    }
}
