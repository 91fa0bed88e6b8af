package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord.ConfigRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.metadata.MetadataRecord.TopicRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateTopics (Kafka's ReplicationControlManager.createTopics): every check runs before any record is made, with
 * Kafka's error codes and messages; validate_only runs the same checks and writes nothing.
 */
final class TopicCreation {
    private final ControllerSettings settings;
    private final Placement placement;
    private final Supplier<Uuid> ids;

    TopicCreation(ControllerSettings settings, Placement placement, Supplier<Uuid> ids) {
        this.settings = settings;
        this.placement = placement;
        this.ids = ids;
    }

    /** What to do with one topic of the request: create it as planned, or refuse it. */
    private sealed interface Verdict permits Plan, Refused { }

    private record Plan(CreatableTopic topic, int partitions, short rf, List<List<Integer>> assignment,
                        Map<String, String> configs) implements Verdict { }

    private record Refused(CreatableTopicResult result) implements Verdict { }

    ControllerResult<CreateTopicsResponseData> create(MetadataImage image, CreateTopicsRequestData req) {
        CreateTopicsResponseData resp = new CreateTopicsResponseData();
        Map<String, Integer> counts = new HashMap<>();
        req.topics().forEach(t -> counts.merge(t.name(), 1, Integer::sum));
        Set<String> answered = new HashSet<>();
        List<CreatableTopic> candidates = new ArrayList<>();
        for (CreatableTopic t : req.topics()) {
            if (counts.get(t.name()) > 1) {
                if (answered.add(t.name())) resp.topics().add(error(t.name(), Errors.INVALID_REQUEST, "Duplicate topic name."));
            } else {
                candidates.add(t);
            }
        }
        // Kafka refuses the whole request when it asks for too many partitions, before looking at each topic.
        long requested = 0;
        for (CreatableTopic t : candidates) {
            requested += t.assignments().isEmpty() ? effectivePartitions(t) : t.assignments().size();
        }
        if (requested > settings.maxPartitionsPerRequest()) {
            for (CreatableTopic t : candidates) {
                resp.topics().add(error(t.name(), Errors.POLICY_VIOLATION, "Excessively large number of partitions per request."));
            }
            return ControllerResult.of(resp);
        }
        Decision d = new Decision(image);
        for (CreatableTopic t : candidates) {
            Verdict verdict = plan(d.image(), t);
            if (verdict instanceof Refused r) {
                resp.topics().add(r.result());
                continue;
            }
            Plan p = (Plan) verdict;
            Uuid id = req.validateOnly() ? Uuid.ZERO_UUID : ids.get();
            if (!req.validateOnly()) {
                MetadataImage img = d.image();
                d.add(new TopicRecord(t.name(), id));
                new TreeMap<>(p.configs).forEach((k, v) -> d.add(new ConfigRecord(ConfigResource.Type.TOPIC, t.name(), k, v)));
                for (int i = 0; i < p.assignment.size(); i++) {
                    List<Integer> replicas = p.assignment.get(i);
                    List<Integer> isr = replicas.stream().filter(r -> PartitionChanges.isActive(img, r)).toList();
                    d.add(new PartitionRecord(id, i, replicas, isr, isr.get(0), 0, 0));
                }
            }
            resp.topics().add(new CreatableTopicResult().setName(t.name()).setTopicId(id)
                    .setErrorCode(Errors.NONE.code()).setNumPartitions(p.partitions).setReplicationFactor(p.rf));
        }
        return d.result(resp);
    }

    private int effectivePartitions(CreatableTopic t) {
        return t.numPartitions() == -1 ? settings.defaultNumPartitions() : Math.max(0, t.numPartitions());
    }

    private Verdict plan(MetadataImage image, CreatableTopic t) {
        String name = t.name();
        try {
            Topic.validate(name);
        } catch (InvalidTopicException e) {
            return refuse(name, Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
        }
        if (image.topic(name).isPresent()) return refuse(name, Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
        for (String existing : image.topicsByName().keySet()) {
            if (Topic.hasCollision(name, existing)) {
                return refuse(name, Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + name + "' collides with existing topic: " + existing);
            }
        }
        Map<String, String> configs = new HashMap<>();
        for (CreateTopicsRequestData.CreatableTopicConfig c : t.configs()) {
            if (configs.put(c.name(), c.value()) != null) {
                return refuse(name, Errors.INVALID_CONFIG, "Duplicate config key " + c.name());
            }
        }
        Optional<String> badConfig = ConfigControl.invalidTopicConfigs(configs);
        if (badConfig.isPresent()) return refuse(name, Errors.INVALID_CONFIG, badConfig.get());
        List<List<Integer>> assignment;
        int partitions;
        short rf;
        if (!t.assignments().isEmpty()) {
            if (t.numPartitions() != -1 || t.replicationFactor() != -1) {
                return refuse(name, Errors.INVALID_REQUEST, "A manual partition assignment was specified, but numPartitions "
                        + "or replicationFactor was not set to -1.");
            }
            Placement.Checked<List<List<Integer>>> a = Placement.checkManual(image, t);
            if (a.isRefused()) return refuse(name, Errors.INVALID_REPLICA_ASSIGNMENT, a.error());
            List<List<Integer>> manual = a.value();
            assignment = manual;
            partitions = manual.size();
            rf = (short) manual.get(0).size();
        } else {
            partitions = t.numPartitions() == -1 ? settings.defaultNumPartitions() : t.numPartitions();
            rf = t.replicationFactor() == -1 ? settings.defaultReplicationFactor() : t.replicationFactor();
            if (partitions <= 0) {
                return refuse(name, Errors.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.");
            }
            if (rf <= 0) {
                return refuse(name, Errors.INVALID_REPLICATION_FACTOR,
                        "Replication factor must be larger than 0, or -1 to use the default value.");
            }
            if (partitions > settings.maxPartitionsPerTopic()) {
                return refuse(name, Errors.INVALID_PARTITIONS, "Number of partitions " + partitions
                        + " exceeds the maximum of " + settings.maxPartitionsPerTopic() + " per topic.");
            }
            int live = placement.activeBrokers(image).size();
            if (rf > live) {
                return refuse(name, Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition " + rf
                        + " time(s): The target replication factor of " + rf + " cannot be reached because only "
                        + live + " broker(s) are registered and unfenced.");
            }
            assignment = null;
        }
        if ((long) image.totalPartitions() + partitions > settings.maxPartitionsTotal()) {
            return refuse(name, Errors.POLICY_VIOLATION, "Creating " + partitions + " partition(s) would bring the cluster to "
                    + ((long) image.totalPartitions() + partitions) + " partitions, above its limit of "
                    + settings.maxPartitionsTotal() + ".");
        }
        if (assignment == null) assignment = placement.place(image, partitions, rf);
        return new Plan(t, partitions, rf, assignment, configs);
    }

    private static Refused refuse(String name, Errors e, String message) {
        return new Refused(error(name, e, message));
    }

    static CreatableTopicResult error(String name, Errors e, String message) {
        return new CreatableTopicResult().setName(name).setErrorCode(e.code()).setErrorMessage(message)
                .setTopicId(Uuid.ZERO_UUID);
    }
}
