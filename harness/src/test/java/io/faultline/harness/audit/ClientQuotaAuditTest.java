package io.faultline.harness.audit;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client quota audit's judgement of what DescribeClientQuotas answers. */
class ClientQuotaAuditTest {
    @Test
    void describedQuotasMustBeExactlyTheOnesSet() {
        var both = Map.of("producer_byte_rate", 1048576.0, "consumer_byte_rate", 2097152.0);
        assertNull(ClientQuotaAudit.quotasDiffer("c", both, Map.of("consumer_byte_rate", 2097152.0, "producer_byte_rate", 1048576.0), "now"));
        assertNull(ClientQuotaAudit.quotasDiffer("c", Map.of(), Map.of(), "after removing both"));

        var kept = ClientQuotaAudit.quotasDiffer("c", Map.of("consumer_byte_rate", 2097152.0), both, "after removing producer_byte_rate");
        assertEquals(ClientQuotaAudit.CLIENT_QUOTA, kept.kind());
        assertTrue(kept.explanation().contains("after removing producer_byte_rate answers {consumer_byte_rate=2097152.0, producer_byte_rate=1048576.0}"),
                kept.explanation());
        var wrongValue = ClientQuotaAudit.quotasDiffer("c", both, Map.of("producer_byte_rate", 1048576.0, "consumer_byte_rate", 1.0), "now");
        assertTrue(wrongValue.explanation().contains("not {consumer_byte_rate=2097152.0, producer_byte_rate=1048576.0}"), wrongValue.explanation());
    }
}
