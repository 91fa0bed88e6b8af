package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.metadata.QuotaEntity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** AlterClientQuotas decisions: Kafka's entity and key checks, per-entry outcome, validate-only writes nothing. */
class ClientQuotaControlTest {
    /** One entry: entity as alternating type, name pairs; one op. */
    private static AlterClientQuotasRequestData.EntryData entry(List<String> entity, String key, Double value) {
        AlterClientQuotasRequestData.EntryData e = new AlterClientQuotasRequestData.EntryData();
        for (int i = 0; i < entity.size(); i += 2) {
            e.entity().add(new AlterClientQuotasRequestData.EntityData().setEntityType(entity.get(i))
                    .setEntityName(entity.get(i + 1)));
        }
        e.ops().add(new AlterClientQuotasRequestData.OpData().setKey(key).setValue(value == null ? 0 : value)
                .setRemove(value == null));
        return e;
    }

    private static List<String> errors(LogicHarness h, boolean validateOnly, AlterClientQuotasRequestData.EntryData... es) {
        AlterClientQuotasRequestData req = new AlterClientQuotasRequestData().setValidateOnly(validateOnly);
        req.entries().addAll(List.of(es));
        AlterClientQuotasResponseData resp = h.run(req);
        List<String> out = new ArrayList<>();
        resp.entries().forEach(e -> out.add(Errors.forCode(e.errorCode()) + (e.errorMessage() == null ? "" : ": " + e.errorMessage())));
        return out;
    }

    private static List<String> list(String... xs) {
        return new ArrayList<>(java.util.Arrays.asList(xs)); // names may be null (default entity)
    }

    @Test
    void entitiesAndKeysAreCheckedAsKafkaChecksThem() {
        LogicHarness h = new LogicHarness();
        h.brokers(1);
        assertEquals(List.of("NONE", "NONE", "NONE",
                        "INVALID_REQUEST: Invalid configuration key connection_creation_rate",
                        "INVALID_REQUEST: Proposed value for producer_byte_rate must be an integer",
                        "INVALID_REQUEST: Invalid quota entity combination, IP entity should not be combined with User or ClientId",
                        "INVALID_REQUEST: not-an-ip is not a valid IP",
                        "INVALID_REQUEST: Unhandled client quota entity type: group",
                        "INVALID_REQUEST: Invalid configuration key producer_byte_rate"),
                errors(h, false,
                        entry(list("user", "alice", "client-id", null), "producer_byte_rate", 100.0),
                        entry(list("ip", "10.1.2.3"), "connection_creation_rate", 7.0),
                        entry(list("ip", "::1"), "connection_creation_rate", 8.0),
                        entry(list("user", "alice"), "connection_creation_rate", 1.0),
                        entry(list("user", "alice"), "producer_byte_rate", 1.25),
                        entry(list("user", "alice", "ip", "10.1.2.3"), "connection_creation_rate", 1.0),
                        entry(list("ip", "not-an-ip"), "connection_creation_rate", 1.0),
                        entry(list("group", "g"), "producer_byte_rate", 1.0),
                        entry(list("ip", null), "producer_byte_rate", 1.0)));
        QuotaEntity aliceDefaultClient = new QuotaEntity(List.of(new QuotaEntity.Part("client-id", null),
                new QuotaEntity.Part("user", "alice")));
        assertEquals(Map.of("producer_byte_rate", 100.0), h.image.clientQuota(aliceDefaultClient));
        assertEquals(Map.of("connection_creation_rate", 7.0),
                h.image.clientQuota(new QuotaEntity(List.of(new QuotaEntity.Part("ip", "10.1.2.3")))));
        assertEquals(3, h.image.clientQuotas().size(), "refused entries wrote nothing");

        // Validate-only checks but writes nothing; removing a key removes the entity once it has none.
        assertEquals(List.of("NONE"), errors(h, true, entry(list("user", "bob"), "consumer_byte_rate", 5.0)));
        assertEquals(3, h.image.clientQuotas().size());
        assertEquals(List.of("NONE"), errors(h, false, entry(list("client-id", null, "user", "alice"), "producer_byte_rate", null)));
        assertEquals(Map.of(), h.image.clientQuota(aliceDefaultClient));
        assertEquals(2, h.image.clientQuotas().size());
    }
}
