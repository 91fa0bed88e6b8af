package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.MetadataRecord.ClientQuotaRecord;
import io.faultline.broker.metadata.QuotaEntity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterClientQuotas (Kafka's ClientQuotaControlManager): each entry's entity and quota keys are checked as Kafka
 * checks them, then written as {@link ClientQuotaRecord}s. An entry that fails changes nothing; the others in the
 * same request still apply. Quotas are stored and described, not enforced.
 */
public final class ClientQuotaControl {
    public static final String USER = "user", CLIENT_ID = "client-id", IP = "ip";

    /** Quota keys and their types for user/client-id entities, and for ip entities (Kafka's QuotaConfig). */
    private enum Kind { LONG, DOUBLE, INT }

    private static final Map<String, Kind> CLIENT_KEYS = Map.of("producer_byte_rate", Kind.LONG,
            "consumer_byte_rate", Kind.LONG, "request_percentage", Kind.DOUBLE, "controller_mutation_rate", Kind.DOUBLE);
    private static final Map<String, Kind> IP_KEYS = Map.of("connection_creation_rate", Kind.INT);

    private static final Pattern IPV4 = Pattern.compile("((25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1?\\d?\\d)");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    ControllerResult<AlterClientQuotasResponseData> alter(MetadataImage image, AlterClientQuotasRequestData req) {
        Decision d = new Decision(image);
        AlterClientQuotasResponseData resp = new AlterClientQuotasResponseData();
        for (AlterClientQuotasRequestData.EntryData e : req.entries()) {
            AlterClientQuotasResponseData.EntryData out = new AlterClientQuotasResponseData.EntryData();
            e.entity().forEach(p -> out.entity().add(new AlterClientQuotasResponseData.EntityData()
                    .setEntityType(p.entityType()).setEntityName(p.entityName())));
            List<QuotaEntity.Part> parts = new ArrayList<>();
            e.entity().forEach(p -> parts.add(new QuotaEntity.Part(p.entityType(), p.entityName())));
            Optional<String> bad = invalidEntity(parts);
            List<MetadataRecord> records = new ArrayList<>();
            if (bad.isEmpty()) {
                QuotaEntity entity = new QuotaEntity(parts);
                Map<String, Kind> keys = parts.get(0).type().equals(IP) ? IP_KEYS : CLIENT_KEYS;
                Map<String, Double> current = d.image().clientQuota(entity);
                Set<String> seen = new HashSet<>();
                for (AlterClientQuotasRequestData.OpData op : e.ops()) {
                    bad = seen.add(op.key()) ? invalidOp(keys, op) : Optional.of("Duplicate quota key " + op.key());
                    if (bad.isPresent()) break;
                    if (op.remove()) {
                        if (current.containsKey(op.key())) records.add(new ClientQuotaRecord(entity, op.key(), null));
                    } else if (!Double.valueOf(op.value()).equals(current.get(op.key()))) {
                        records.add(new ClientQuotaRecord(entity, op.key(), op.value()));
                    }
                }
            }
            if (bad.isPresent()) {
                out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(bad.get());
            } else {
                out.setErrorCode(Errors.NONE.code()).setErrorMessage(null);
                if (!req.validateOnly()) records.forEach(d::add);
            }
            resp.entries().add(out);
        }
        return d.result(resp);
    }

    /** Why a quota entity is not one Kafka accepts, or empty. */
    public static Optional<String> invalidEntity(List<QuotaEntity.Part> parts) {
        if (parts.isEmpty()) return Optional.of("Invalid empty client quota entity");
        Set<String> types = new HashSet<>();
        for (QuotaEntity.Part p : parts) {
            if (!p.type().equals(USER) && !p.type().equals(CLIENT_ID) && !p.type().equals(IP)) {
                return Optional.of("Unhandled client quota entity type: " + p.type());
            }
            if (!types.add(p.type())) return Optional.of("Duplicate " + p.type() + " entity in the client quota entity");
            if (p.name() != null && p.name().isEmpty()) {
                return Optional.of("Empty " + p.type() + " name; the default entity has a null name");
            }
        }
        if (types.contains(IP)) {
            if (types.size() > 1) {
                return Optional.of("Invalid quota entity combination, IP entity should not be combined with User or ClientId");
            }
            String ip = parts.get(0).name();
            if (ip != null && !IPV4.matcher(ip).matches() && !IPV6.matcher(ip).matches()) {
                return Optional.of(ip + " is not a valid IP");
            }
        }
        return Optional.empty();
    }

    private static Optional<String> invalidOp(Map<String, Kind> keys, AlterClientQuotasRequestData.OpData op) {
        Kind kind = keys.get(op.key());
        if (kind == null) return Optional.of("Invalid configuration key " + op.key());
        if (op.remove()) return Optional.empty();
        double v = op.value();
        if (Double.isNaN(v) || Double.isInfinite(v)) return Optional.of("Proposed value for " + op.key() + " is not a number");
        switch (kind) {
            case LONG -> {
                if (v != Math.rint(v)) return Optional.of("Proposed value for " + op.key() + " must be an integer");
                if (v > Long.MAX_VALUE || v < Long.MIN_VALUE) {
                    return Optional.of("Proposed value for " + op.key() + " is too large for a LONG.");
                }
            }
            case INT -> {
                if (v != Math.rint(v)) return Optional.of("Proposed value for " + op.key() + " must be an integer");
                if (v > Integer.MAX_VALUE || v < 0) {
                    return Optional.of("Proposed value for " + op.key() + " must be between 0 and " + Integer.MAX_VALUE);
                }
            }
            case DOUBLE -> { }
        }
        return Optional.empty();
    }
}
