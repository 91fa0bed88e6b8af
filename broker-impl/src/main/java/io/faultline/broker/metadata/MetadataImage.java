package io.faultline.broker.metadata;

import io.faultline.broker.metadata.MetadataRecord.ClientQuotaRecord;
import io.faultline.broker.metadata.MetadataRecord.ConfigRecord;
import io.faultline.broker.metadata.MetadataRecord.ControlledShutdownRecord;
import io.faultline.broker.metadata.MetadataRecord.FenceBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionChangeRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionReplicasRecord;
import io.faultline.broker.metadata.MetadataRecord.RegisterBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.RemoveTopicRecord;
import io.faultline.broker.metadata.MetadataRecord.TopicRecord;
import io.faultline.broker.metadata.MetadataRecord.UnfenceBrokerRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The cluster metadata at one committed offset: brokers, topics with their partitions, and configs. Immutable;
 * {@link #apply} replays records into a new image (pure, deterministic), so every node that replays the same
 * committed log holds an equal image.
 *
 * @param offset          index of the last metadata log entry reflected here (-1 for {@link #EMPTY})
 * @param brokers         registered brokers by id
 * @param topicsById      topics by id
 * @param topicConfigs    explicitly set topic configs by topic name (defaults are not stored)
 * @param brokerConfigs   explicitly set broker configs by broker id as a string, "" = cluster-wide default
 * @param groupConfigs    explicitly set group configs by group id (groups need not exist)
 * @param clientQuotas    client quotas (AlterClientQuotas) by entity, key to value
 */
public record MetadataImage(long offset, Map<Integer, BrokerRegistration> brokers, Map<Uuid, TopicImage> topicsById,
                            Map<String, Map<String, String>> topicConfigs,
                            Map<String, Map<String, String>> brokerConfigs,
                            Map<String, Map<String, String>> groupConfigs,
                            Map<QuotaEntity, Map<String, Double>> clientQuotas) {

    public static final MetadataImage EMPTY = new MetadataImage(-1, Map.of(), Map.of(), Map.of(), Map.of(), Map.of(),
            Map.of());

    public MetadataImage {
        brokers = frozen(brokers);
        topicsById = Collections.unmodifiableMap(new HashMap<>(topicsById));
        topicConfigs = frozenConfigs(topicConfigs);
        brokerConfigs = frozenConfigs(brokerConfigs);
        groupConfigs = frozenConfigs(groupConfigs);
        clientQuotas = frozenConfigs(clientQuotas);
    }

    /** An image without group configs. */
    public MetadataImage(long offset, Map<Integer, BrokerRegistration> brokers, Map<Uuid, TopicImage> topicsById,
                         Map<String, Map<String, String>> topicConfigs, Map<String, Map<String, String>> brokerConfigs) {
        this(offset, brokers, topicsById, topicConfigs, brokerConfigs, Map.of(), Map.of());
    }

    public Optional<TopicImage> topic(String name) {
        for (TopicImage t : topicsById.values()) {
            if (t.name().equals(name)) return Optional.of(t);
        }
        return Optional.empty();
    }

    /** Topics by name (sorted), built on demand. */
    public Map<String, TopicImage> topicsByName() {
        TreeMap<String, TopicImage> m = new TreeMap<>();
        for (TopicImage t : topicsById.values()) m.put(t.name(), t);
        return Collections.unmodifiableMap(m);
    }

    public Optional<TopicImage> topic(Uuid id) {
        return Optional.ofNullable(topicsById.get(id));
    }

    public Optional<BrokerRegistration> broker(int id) {
        return Optional.ofNullable(brokers.get(id));
    }

    /** Explicitly set configs of a topic (empty when none). */
    public Map<String, String> topicConfig(String topic) {
        return topicConfigs.getOrDefault(topic, Map.of());
    }

    /** Explicitly set configs of a broker resource ("" = cluster default). */
    public Map<String, String> brokerConfig(String resourceName) {
        return brokerConfigs.getOrDefault(resourceName, Map.of());
    }

    /** The quotas set on exactly this entity (empty when none). */
    public Map<String, Double> clientQuota(QuotaEntity entity) {
        return clientQuotas.getOrDefault(entity, Map.of());
    }

    /** Explicitly set configs of a group (empty when none). */
    public Map<String, String> groupConfig(String groupId) {
        return groupConfigs.getOrDefault(groupId, Map.of());
    }

    public int totalPartitions() {
        int n = 0;
        for (TopicImage t : topicsById.values()) n += t.partitionCount();
        return n;
    }

    /**
     * This image with the given brokers' registration offsets (a snapshot's replay records every broker at the
     * snapshot's offset; the snapshot carries the real ones). Ids not registered here are ignored.
     */
    MetadataImage withRegisteredAt(Map<Integer, Long> registeredAt) {
        Map<Integer, BrokerRegistration> out = new HashMap<>(brokers);
        registeredAt.forEach((id, at) -> out.computeIfPresent(id, (k, b) -> b.withRegisteredAt(at)));
        return new MetadataImage(offset, out, topicsById, topicConfigs, brokerConfigs, groupConfigs, clientQuotas);
    }

    public MetadataImage withOffset(long newOffset) {
        return new MetadataImage(newOffset, brokers, topicsById, topicConfigs, brokerConfigs, groupConfigs, clientQuotas);
    }

    /** Replays {@code records} in order; the offset is unchanged. */
    public MetadataImage apply(List<? extends MetadataRecord> records) {
        return apply(offset, records);
    }

    /** Replays {@code records} in order and marks the result as reflecting log entry {@code newOffset}. */
    public MetadataImage apply(long newOffset, List<? extends MetadataRecord> records) {
        if (records.isEmpty()) return withOffset(newOffset);
        Builder b = new Builder(this, newOffset);
        for (MetadataRecord r : records) b.replay(r);
        return new MetadataImage(newOffset, b.brokers, b.finishTopics(), b.topicConfigs, b.brokerConfigs,
                b.groupConfigs, b.clientQuotas);
    }

    /**
     * Records that rebuild this image from {@link #EMPTY} (the snapshot form), in a stable order: brokers,
     * topics with partitions, configs.
     */
    public List<MetadataRecord> toRecords() {
        List<MetadataRecord> out = new ArrayList<>();
        for (BrokerRegistration br : new TreeMap<>(brokers).values()) {
            out.add(new RegisterBrokerRecord(br.id(), br.incarnationId(), br.epoch(), br.endpoints(), br.rack()));
            if (!br.fenced()) out.add(new UnfenceBrokerRecord(br.id(), br.epoch()));
            if (br.inControlledShutdown()) out.add(new ControlledShutdownRecord(br.id(), br.epoch()));
        }
        for (TopicImage t : topicsByName().values()) {
            out.add(new TopicRecord(t.name(), t.id()));
            t.partitions().forEach((p, pr) -> out.add(new PartitionRecord(t.id(), p, pr.replicas(), pr.isr(),
                    pr.leader(), pr.leaderEpoch(), pr.partitionEpoch(), pr.addingReplicas(), pr.removingReplicas())));
        }
        configsToRecords(ConfigResource.Type.TOPIC, topicConfigs, out);
        configsToRecords(ConfigResource.Type.BROKER, brokerConfigs, out);
        configsToRecords(ConfigResource.Type.GROUP, groupConfigs, out);
        clientQuotas.keySet().stream().sorted(java.util.Comparator.comparing(QuotaEntity::toString)).forEach(e ->
                new TreeMap<>(clientQuotas.get(e)).forEach((k, v) -> out.add(new ClientQuotaRecord(e, k, v))));
        return out;
    }

    private static void configsToRecords(ConfigResource.Type type, Map<String, Map<String, String>> configs,
                                         List<MetadataRecord> out) {
        new TreeMap<>(configs).forEach((name, kv) -> new TreeMap<>(kv).forEach((k, v) ->
                out.add(new ConfigRecord(type, name, k, v))));
    }

    private static <K, V> Map<K, V> frozen(Map<K, V> m) {
        return Collections.unmodifiableMap(new HashMap<>(m));
    }

    private static <K, V> Map<K, Map<String, V>> frozenConfigs(Map<K, Map<String, V>> m) {
        Map<K, Map<String, V>> out = new HashMap<>();
        m.forEach((k, v) -> {
            if (!v.isEmpty()) out.put(k, Map.copyOf(v));
        });
        return Collections.unmodifiableMap(out);
    }

    /** Mutable working copy used during one {@link #apply}; throws on records that break an invariant. */
    private static final class Builder {
        final Map<Integer, BrokerRegistration> brokers;
        final Map<Uuid, TopicImage> topics;
        final Map<String, Map<String, String>> topicConfigs;
        final Map<String, Map<String, String>> brokerConfigs;
        final Map<String, Map<String, String>> groupConfigs;
        final Map<QuotaEntity, Map<String, Double>> clientQuotas;
        /** Partition maps of the topics this batch touched, copied once per batch (not once per record). */
        final Map<Uuid, Map<Integer, PartitionRegistration>> dirty = new HashMap<>();

        /** The offset of the log entry being replayed: where a broker registered in it registered. */
        final long offset;

        Builder(MetadataImage base, long offset) {
            this.offset = offset;
            brokers = new HashMap<>(base.brokers);
            topics = new HashMap<>(base.topicsById);
            topicConfigs = new HashMap<>(base.topicConfigs);
            brokerConfigs = new HashMap<>(base.brokerConfigs);
            groupConfigs = new HashMap<>(base.groupConfigs);
            clientQuotas = new HashMap<>(base.clientQuotas);
        }

        void replay(MetadataRecord record) {
            if (record instanceof RegisterBrokerRecord r) {
                BrokerRegistration old = brokers.get(r.brokerId());
                if (old != null && r.brokerEpoch() <= old.epoch()) {
                    throw new IllegalStateException("broker epoch must grow: " + old.epoch() + " then " + r);
                }
                brokers.put(r.brokerId(), new BrokerRegistration(r.brokerId(), r.incarnationId(), r.brokerEpoch(),
                        r.endpoints(), r.rack(), true, false, offset));
            } else if (record instanceof FenceBrokerRecord r) {
                brokers.put(r.brokerId(), broker(r.brokerId(), r.brokerEpoch()).withFenced(true));
            } else if (record instanceof UnfenceBrokerRecord r) {
                brokers.put(r.brokerId(), broker(r.brokerId(), r.brokerEpoch()).withFenced(false));
            } else if (record instanceof ControlledShutdownRecord r) {
                brokers.put(r.brokerId(), broker(r.brokerId(), r.brokerEpoch()).withControlledShutdown());
            } else if (record instanceof TopicRecord r) {
                if (topics.containsKey(r.topicId())) throw new IllegalStateException("topic id exists: " + r);
                for (TopicImage t : topics.values()) {
                    if (t.name().equals(r.name())) throw new IllegalStateException("topic name exists: " + r);
                }
                topics.put(r.topicId(), new TopicImage(r.name(), r.topicId(), Map.of()));
            } else if (record instanceof PartitionRecord r) {
                Map<Integer, PartitionRegistration> parts = partitions(r.topicId());
                if (parts.containsKey(r.partition())) throw new IllegalStateException("partition exists: " + r);
                parts.put(r.partition(), new PartitionRegistration(r.replicas(), r.isr(), r.leader(),
                        r.leaderEpoch(), r.partitionEpoch(), r.addingReplicas(), r.removingReplicas()));
            } else if (record instanceof PartitionChangeRecord r) {
                Map<Integer, PartitionRegistration> parts = partitions(r.topicId());
                PartitionRegistration old = parts.get(r.partition());
                if (old == null) throw new IllegalStateException("no such partition: " + r);
                // Epochs move by exactly one step: a change decided on a stale image cannot replay.
                boolean leaderMoves = r.leader().isPresent() && r.leader().getAsInt() != old.leader();
                // A leader move that keeps the epoch only comes from seeded bug epoch-not-bumped; it must replay so
                // the brokers act on it (the harness is to find what goes wrong then).
                boolean epochFollows = r.leaderEpoch() == old.leaderEpoch() + (leaderMoves ? 1 : 0)
                        || (leaderMoves && r.leaderEpoch() == old.leaderEpoch());
                if (r.partitionEpoch() != old.partitionEpoch() + 1 || !epochFollows) {
                    throw new IllegalStateException("epochs do not follow " + old + ": " + r);
                }
                parts.put(r.partition(), old.merge(r.isr(), r.leader(), r.leaderEpoch(), r.partitionEpoch()));
            } else if (record instanceof PartitionReplicasRecord r) {
                Map<Integer, PartitionRegistration> parts = partitions(r.topicId());
                PartitionRegistration old = parts.get(r.partition());
                if (old == null) throw new IllegalStateException("no such partition: " + r);
                if (r.partitionEpoch() != old.partitionEpoch() + 1 || r.leaderEpoch() != old.leaderEpoch() + 1) {
                    throw new IllegalStateException("epochs do not follow " + old + ": " + r);
                }
                parts.put(r.partition(), new PartitionRegistration(r.replicas(), r.isr(), r.leader(), r.leaderEpoch(),
                        r.partitionEpoch(), r.addingReplicas(), r.removingReplicas()));
            } else if (record instanceof RemoveTopicRecord r) {
                TopicImage t = topic(r.topicId());
                topics.remove(r.topicId());
                dirty.remove(r.topicId());
                topicConfigs.remove(t.name());
            } else if (record instanceof ConfigRecord r) {
                Map<String, Map<String, String>> target;
                if (r.resourceType() == ConfigResource.Type.TOPIC) target = topicConfigs;
                else if (r.resourceType() == ConfigResource.Type.BROKER) target = brokerConfigs;
                else if (r.resourceType() == ConfigResource.Type.GROUP) target = groupConfigs;
                else throw new IllegalStateException("unsupported config resource: " + r);
                Map<String, String> kv = new HashMap<>(target.getOrDefault(r.resourceName(), Map.of()));
                if (r.value() == null) kv.remove(r.key()); else kv.put(r.key(), r.value());
                if (kv.isEmpty()) target.remove(r.resourceName()); else target.put(r.resourceName(), kv);
            } else if (record instanceof ClientQuotaRecord r) {
                Map<String, Double> kv = new HashMap<>(clientQuotas.getOrDefault(r.entity(), Map.of()));
                if (r.value() == null) kv.remove(r.key()); else kv.put(r.key(), r.value());
                if (kv.isEmpty()) clientQuotas.remove(r.entity()); else clientQuotas.put(r.entity(), kv);
            } else {
                throw new IllegalStateException("unknown record " + record);
            }
        }

        private BrokerRegistration broker(int id, long epoch) {
            BrokerRegistration b = brokers.get(id);
            if (b == null) throw new IllegalStateException("unknown broker " + id);
            if (b.epoch() != epoch) throw new IllegalStateException("broker " + id + " epoch " + b.epoch() + " != " + epoch);
            return b;
        }

        private TopicImage topic(Uuid id) {
            TopicImage t = topics.get(id);
            if (t == null) throw new IllegalStateException("unknown topic id " + id);
            return t;
        }

        private Map<Integer, PartitionRegistration> partitions(Uuid topicId) {
            Map<Integer, PartitionRegistration> parts = dirty.get(topicId);
            if (parts == null) {
                parts = new HashMap<>(topic(topicId).partitions());
                dirty.put(topicId, parts);
            }
            return parts;
        }

        Map<Uuid, TopicImage> finishTopics() {
            dirty.forEach((id, parts) -> {
                TopicImage t = topics.get(id);
                topics.put(id, new TopicImage(t.name(), t.id(), parts));
            });
            return topics;
        }
    }
}
