package io.faultline.broker.api;

import io.faultline.broker.controller.ClientQuotaControl;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.QuotaEntity;
import io.faultline.broker.network.Request;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Client quotas (kafka-configs --entity-type users/clients/ips): AlterClientQuotas is forwarded to the controller,
 * which stores them as metadata records; DescribeClientQuotas answers from this node's metadata image with Kafka's
 * filter semantics. This broker stores and reports quotas but does not throttle anybody.
 */
public final class QuotaApis {
    private static final byte EXACT = 0, DEFAULT = 1, SPECIFIED = 2;

    private final BrokerContext ctx;

    public QuotaApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    public void alterClientQuotas(Request r) {
        AlterClientQuotasRequestData req = r.data();
        Forwarding.forward(ctx, r, resp -> img -> req.validateOnly() || shows(req, (AlterClientQuotasResponseData) resp, img));
    }

    /** Whether {@code img} shows every change of the entries the controller accepted. */
    private static boolean shows(AlterClientQuotasRequestData req, AlterClientQuotasResponseData resp, MetadataImage img) {
        Set<QuotaEntity> ok = new HashSet<>();
        for (AlterClientQuotasResponseData.EntryData e : resp.entries()) {
            if (e.errorCode() != Errors.NONE.code()) continue;
            List<QuotaEntity.Part> parts = new ArrayList<>();
            e.entity().forEach(p -> parts.add(new QuotaEntity.Part(p.entityType(), p.entityName())));
            ok.add(new QuotaEntity(parts));
        }
        for (AlterClientQuotasRequestData.EntryData e : req.entries()) {
            List<QuotaEntity.Part> parts = new ArrayList<>();
            e.entity().forEach(p -> parts.add(new QuotaEntity.Part(p.entityType(), p.entityName())));
            QuotaEntity entity = new QuotaEntity(parts);
            if (!ok.contains(entity)) continue;
            Map<String, Double> now = img.clientQuota(entity);
            for (AlterClientQuotasRequestData.OpData op : e.ops()) {
                if (op.remove() ? now.containsKey(op.key()) : !Objects.equals(now.get(op.key()), op.value())) return false;
            }
        }
        return true;
    }

    public void describeClientQuotas(Request r) {
        DescribeClientQuotasRequestData req = r.data();
        DescribeClientQuotasResponseData resp = new DescribeClientQuotasResponseData().setThrottleTimeMs(0);
        Map<String, String> exact = new HashMap<>(); // type -> name (null: the default entity)
        Set<String> anyName = new HashSet<>();
        for (DescribeClientQuotasRequestData.ComponentData c : req.components()) {
            String type = c.entityType();
            String why = null;
            if (!type.equals(ClientQuotaControl.USER) && !type.equals(ClientQuotaControl.CLIENT_ID)
                    && !type.equals(ClientQuotaControl.IP)) {
                why = "Custom entity type " + type + " is not supported";
            } else if (exact.containsKey(type) || anyName.contains(type)) {
                why = "Entity type " + type + " cannot appear more than once in the filter";
            } else if (c.matchType() == EXACT) {
                if (c.match() == null) why = "Request must specify a name for an EXACT match on " + type;
                else exact.put(type, c.match());
            } else if (c.matchType() == DEFAULT) {
                exact.put(type, null);
            } else if (c.matchType() == SPECIFIED) {
                anyName.add(type);
            } else {
                why = "Unknown match type " + c.matchType();
            }
            if (why != null) {
                ctx.channel().sendResponse(r, resp.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(why)
                        .setEntries(null));
                return;
            }
        }
        boolean ipFilter = exact.containsKey(ClientQuotaControl.IP) || anyName.contains(ClientQuotaControl.IP);
        if (ipFilter && exact.size() + anyName.size() > 1) {
            ctx.channel().sendResponse(r, resp.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(
                    "Invalid entity filter component combination, IP filter component should not be used with user "
                            + "or clientId filter component.").setEntries(null));
            return;
        }
        Map<QuotaEntity, Map<String, Double>> all = ctx.metadata().image().clientQuotas();
        List<QuotaEntity> matching = new ArrayList<>();
        for (QuotaEntity e : all.keySet()) {
            if (matches(e, exact, anyName, req.strict())) matching.add(e);
        }
        matching.sort(Comparator.comparing(QuotaEntity::toString));
        List<DescribeClientQuotasResponseData.EntryData> entries = new ArrayList<>();
        for (QuotaEntity e : matching) {
            DescribeClientQuotasResponseData.EntryData out = new DescribeClientQuotasResponseData.EntryData();
            e.parts().forEach(p -> out.entity().add(new DescribeClientQuotasResponseData.EntityData()
                    .setEntityType(p.type()).setEntityName(p.name())));
            new TreeMap<>(all.get(e)).forEach((k, v) -> out.values().add(
                    new DescribeClientQuotasResponseData.ValueData().setKey(k).setValue(v)));
            entries.add(out);
        }
        ctx.channel().sendResponse(r, resp.setErrorCode(Errors.NONE.code()).setErrorMessage(null).setEntries(entries));
    }

    /**
     * Kafka's rule: the entity has every filtered type, with the exact name (or the default) where one is given;
     * under {@code strict} it has no other types.
     */
    private static boolean matches(QuotaEntity e, Map<String, String> exact, Set<String> anyName, boolean strict) {
        Map<String, String> byType = new HashMap<>();
        e.parts().forEach(p -> byType.put(p.type(), p.name()));
        if (strict && byType.size() != exact.size() + anyName.size()) return false;
        for (Map.Entry<String, String> x : exact.entrySet()) {
            if (!byType.containsKey(x.getKey()) || !Objects.equals(byType.get(x.getKey()), x.getValue())) return false;
        }
        for (String type : anyName) {
            if (!byType.containsKey(type)) return false;
        }
        return true;
    }
}
