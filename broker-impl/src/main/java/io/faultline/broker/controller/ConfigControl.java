package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.MetadataRecord.ConfigRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Topic, broker and group configs (Kafka's ConfigurationControlManager): IncrementalAlterConfigs (SET, DELETE, APPEND,
 * SUBTRACT) and legacy AlterConfigs (replace the whole set), validated, written as {@link ConfigRecord}s.
 * A resource that fails validation changes nothing; the others in the same request still apply.
 */
final class ConfigControl {
    private static final byte SET = 0, DELETE = 1, APPEND = 2, SUBTRACT = 3;

    private record Outcome(Errors error, String message, List<MetadataRecord> records) { }

    ControllerResult<IncrementalAlterConfigsResponseData> incrementalAlter(MetadataImage image,
                                                                          IncrementalAlterConfigsRequestData req) {
        Decision d = new Decision(image);
        IncrementalAlterConfigsResponseData resp = new IncrementalAlterConfigsResponseData();
        for (IncrementalAlterConfigsRequestData.AlterConfigsResource r : req.resources()) {
            Outcome o = incremental(d.image(), r);
            if (o.error == Errors.NONE && !req.validateOnly()) o.records.forEach(d::add);
            resp.responses().add(new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(r.resourceType()).setResourceName(r.resourceName())
                    .setErrorCode(o.error.code()).setErrorMessage(o.message));
        }
        return d.result(resp);
    }

    ControllerResult<AlterConfigsResponseData> alter(MetadataImage image, AlterConfigsRequestData req) {
        Decision d = new Decision(image);
        AlterConfigsResponseData resp = new AlterConfigsResponseData();
        for (AlterConfigsRequestData.AlterConfigsResource r : req.resources()) {
            Map<String, String> wanted = new HashMap<>();
            r.configs().forEach(c -> wanted.put(c.name(), c.value()));
            Outcome o = replaceAll(d.image(), r.resourceType(), r.resourceName(), wanted);
            if (o.error == Errors.NONE && !req.validateOnly()) o.records.forEach(d::add);
            resp.responses().add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(r.resourceType()).setResourceName(r.resourceName())
                    .setErrorCode(o.error.code()).setErrorMessage(o.message));
        }
        return d.result(resp);
    }

    private Outcome incremental(MetadataImage image, IncrementalAlterConfigsRequestData.AlterConfigsResource r) {
        ConfigResource.Type type = ConfigResource.Type.forId(r.resourceType());
        Optional<Outcome> bad = checkResource(image, type, r.resourceName());
        if (bad.isPresent()) return bad.get();
        Map<String, String> current = current(image, type, r.resourceName());
        Map<String, String> next = new HashMap<>(current);
        Set<String> seen = new LinkedHashSet<>();
        for (IncrementalAlterConfigsRequestData.AlterableConfig c : r.configs()) {
            if (!seen.add(c.name())) return error(Errors.INVALID_REQUEST, "Duplicate config key " + c.name());
            switch (c.configOperation()) {
                case SET -> next.put(c.name(), c.value());
                case DELETE -> next.remove(c.name());
                case APPEND, SUBTRACT -> {
                    GroupConfigs.Def def = type == ConfigResource.Type.GROUP ? GroupConfigs.ALL.get(c.name()) : null;
                    BrokerConfigs.Def brokerDef = type == ConfigResource.Type.BROKER ? BrokerConfigs.DYNAMIC.get(c.name()) : null;
                    if ((def != null && def.type() != GroupConfigs.Type.LIST)
                            || (brokerDef != null && brokerDef.type() != BrokerConfigs.Type.LIST)) {
                        return error(Errors.INVALID_CONFIG, "Can't " + (c.configOperation() == APPEND ? "APPEND" : "SUBTRACT")
                                + " to key " + c.name() + " because its type is not LIST.");
                    }
                    List<String> items = new ArrayList<>(splitList(next.getOrDefault(c.name(), "")));
                    for (String v : splitList(c.value() == null ? "" : c.value())) {
                        if (c.configOperation() == APPEND) {
                            if (!items.contains(v)) items.add(v);
                        } else {
                            items.remove(v);
                        }
                    }
                    if (items.isEmpty()) next.remove(c.name()); else next.put(c.name(), String.join(",", items));
                }
                default -> {
                    return error(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation());
                }
            }
        }
        return diff(type, r.resourceName(), current, next, seen);
    }

    private Outcome replaceAll(MetadataImage image, byte typeId, String name, Map<String, String> wanted) {
        ConfigResource.Type type = ConfigResource.Type.forId(typeId);
        Optional<Outcome> bad = checkResource(image, type, name);
        if (bad.isPresent()) return bad.get();
        return diff(type, name, current(image, type, name), wanted, wanted.keySet());
    }

    private static Optional<Outcome> checkResource(MetadataImage image, ConfigResource.Type type, String name) {
        if (type == ConfigResource.Type.TOPIC) {
            if (image.topic(name).isEmpty()) {
                return Optional.of(error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + name + "' does not exist."));
            }
        } else if (type == ConfigResource.Type.BROKER) {
            if (!name.isEmpty()) {
                try {
                    Integer.parseInt(name);
                } catch (NumberFormatException e) {
                    return Optional.of(error(Errors.INVALID_REQUEST, "Invalid broker id '" + name + "'"));
                }
            }
        } else if (type == ConfigResource.Type.GROUP) {
            // As Kafka: a group's configs may be set before the group exists; there is no default group resource.
            if (name.isEmpty()) return Optional.of(error(Errors.INVALID_REQUEST, "Default group resources are not allowed."));
        } else {
            return Optional.of(error(Errors.INVALID_REQUEST, "Unsupported resource type " + type));
        }
        return Optional.empty();
    }

    private static Map<String, String> current(MetadataImage image, ConfigResource.Type type, String name) {
        if (type == ConfigResource.Type.GROUP) return image.groupConfig(name);
        return type == ConfigResource.Type.TOPIC ? image.topicConfig(name) : image.brokerConfig(name);
    }

    private static Outcome diff(ConfigResource.Type type, String name, Map<String, String> current,
                                Map<String, String> next, Set<String> touched) {
        for (Map.Entry<String, String> e : next.entrySet()) {
            if (e.getValue() == null) return error(Errors.INVALID_CONFIG, "Null value not supported for " + e.getKey());
        }
        for (String k : new TreeMap<>(next).keySet()) {
            if (!touched.contains(k)) continue;
            Optional<String> why = type == ConfigResource.Type.TOPIC ? TopicConfigs.invalid(k, next.get(k))
                    : type == ConfigResource.Type.GROUP ? GroupConfigs.invalid(k, next.get(k))
                    : BrokerConfigs.invalid(k, next.get(k));
            if (why.isPresent()) return error(Errors.INVALID_CONFIG, why.get());
        }
        List<MetadataRecord> records = new ArrayList<>();
        new TreeMap<>(next).forEach((k, v) -> {
            if (!v.equals(current.get(k))) records.add(new ConfigRecord(type, name, k, v));
        });
        new TreeMap<>(current).forEach((k, v) -> {
            if (!next.containsKey(k)) records.add(new ConfigRecord(type, name, k, null));
        });
        return new Outcome(Errors.NONE, null, records);
    }

    /** Validates the configs of a topic being created; empty when all are acceptable. */
    static Optional<String> invalidTopicConfigs(Map<String, String> configs) {
        for (Map.Entry<String, String> e : new TreeMap<>(configs).entrySet()) {
            Optional<String> why = TopicConfigs.invalid(e.getKey(), e.getValue());
            if (why.isPresent()) return why;
        }
        return Optional.empty();
    }

    private static List<String> splitList(String v) {
        return v.isBlank() ? List.of() : Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static Outcome error(Errors e, String message) {
        return new Outcome(e, message, List.of());
    }
}
