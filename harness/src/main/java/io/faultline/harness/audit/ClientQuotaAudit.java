package io.faultline.harness.audit;

import io.faultline.harness.audit.ApiAudit.Finding;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Client quotas as {@code kafka-configs --entity-type clients} sets them ({@value #CLIENT_QUOTA}): quotas set for a
 * client id of the audit's own (no client of the run uses it, so nothing is throttled) are described back exactly
 * (within the audit's wait: brokers describe quotas from their copy of the metadata),
 * removing one keeps the other, removing both leaves the entity without quotas, and a quota key Kafka does not know is
 * refused (INVALID_REQUEST). Quotas are stored in the controller's metadata like configs, a path no workload takes.
 * A broker without the quota APIs (before Kafka 2.6) gets a note.
 */
final class ClientQuotaAudit {
    static final String CLIENT_QUOTA = "audit/client-quota";
    static final String PRODUCE = "producer_byte_rate", CONSUME = "consumer_byte_rate";

    private final TopicLifecycleAudit audit;
    private final ClientQuotaEntity entity;

    ClientQuotaAudit(TopicLifecycleAudit audit) {
        this.audit = audit;
        this.entity = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, audit.prefix + TopicLifecycleAudit.SCRATCH_INFIX + "quota"));
    }

    void run(Admin admin) throws Exception {
        double produce = 1_048_576 + (Math.floorMod(audit.seed, 1000) * 1024), consume = 2 * produce;
        try {
            alter(admin, Map.of(PRODUCE, produce, CONSUME, consume), "setting " + PRODUCE + " and " + CONSUME);
        } catch (TopicLifecycleAudit.Refused e) {
            if (!(e.getCause() instanceof UnsupportedVersionException)) throw e;
            audit.notes.add("client quotas not audited: " + e.getMessage());
            return;
        }
        if (!expect(admin, Map.of(PRODUCE, produce, CONSUME, consume), "after setting both")) return;
        alter(admin, Map.of(PRODUCE, REMOVE), "removing " + PRODUCE);
        if (!expect(admin, Map.of(CONSUME, consume), "after removing " + PRODUCE)) return;
        alter(admin, Map.of(CONSUME, REMOVE), "removing " + CONSUME);
        if (!expect(admin, Map.of(), "after removing both")) return;
        audit.expectRefusal(entity.toString(), "setting the unknown quota faultline_no_such_quota", InvalidRequestException.class,
                admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity,
                        List.of(new ClientQuotaAlteration.Op("faultline_no_such_quota", 1.0))))).all());
    }

    /** A value that removes the quota (Kafka's alteration op with no value). */
    private static final double REMOVE = Double.NaN;

    private void alter(Admin admin, Map<String, Double> values, String what) throws Exception {
        List<ClientQuotaAlteration.Op> ops = values.entrySet().stream()
                .map(e -> new ClientQuotaAlteration.Op(e.getKey(), Double.isNaN(e.getValue()) ? null : e.getValue())).toList();
        audit.get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity, ops))).all(), CLIENT_QUOTA, entity.toString(), what);
    }

    /**
     * Polls DescribeClientQuotas until it answers the expected quotas or the audit's wait runs out: the controller
     * commits an alteration before it answers, but the broker that describes quotas answers from its own copy of the
     * metadata, which may not have it yet (Kafka's too; a first read-back right after the alteration was seen empty).
     */
    private boolean expect(Admin admin, Map<String, Double> expected, String when) throws Exception {
        long deadline = System.nanoTime() + audit.wait.toNanos();
        Finding f;
        while (true) {
            var described = audit.get(admin.describeClientQuotas(ClientQuotaFilter.containsOnly(List.of(
                    ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.CLIENT_ID, entity.entries().get(ClientQuotaEntity.CLIENT_ID)))))
                    .entities(), CLIENT_QUOTA, entity.toString(), "DescribeClientQuotas");
            f = quotasDiffer(entity.toString(), expected, described.getOrDefault(entity, Map.of()),
                    when + ", " + audit.wait.toSeconds() + " s on,");
            if (f == null || System.nanoTime() > deadline) break;
            Thread.sleep(200);
        }
        if (f != null) audit.findings.add(f);
        return f == null;
    }

    /** A finding unless the described quotas are exactly the expected ones. */
    static Finding quotasDiffer(String subject, Map<String, Double> expected, Map<String, Double> described, String when) {
        if (new TreeMap<>(expected).equals(new TreeMap<>(described))) return null;
        return new Finding(CLIENT_QUOTA, subject, "DescribeClientQuotas " + when + " answers " + new TreeMap<>(described)
                + ", not " + new TreeMap<>(expected));
    }
}
