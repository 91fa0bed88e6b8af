package io.faultline.broker.metadata;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * One entry of the replicated metadata log. The set is closed: the controller decides by emitting these, and
 * every node (voter or listener) replays the same committed sequence into a {@link MetadataImage}.
 * Records are plain values; {@link MetadataImage#apply} is the only place that interprets them.
 */
public sealed interface MetadataRecord {

    /** Broker {@code brokerId} (re)registered; a new registration starts fenced with a fresh epoch. */
    record RegisterBrokerRecord(int brokerId, Uuid incarnationId, long brokerEpoch,
                                Map<String, Endpoint> endpoints, String rack) implements MetadataRecord {
        public RegisterBrokerRecord {
            Objects.requireNonNull(incarnationId, "incarnationId");
            endpoints = Map.copyOf(endpoints);
        }
    }

    /** The broker missed its session or asked to stop: it may lead nothing and is out of every ISR. */
    record FenceBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord { }

    /** The registered broker heartbeats and caught up: it may lead and join ISRs again. */
    record UnfenceBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord { }

    /** The broker asked for a controlled shutdown: the controller moves its leaderships away. */
    record ControlledShutdownRecord(int brokerId, long brokerEpoch) implements MetadataRecord { }

    record TopicRecord(String name, Uuid topicId) implements MetadataRecord {
        public TopicRecord {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(topicId, "topicId");
        }
    }

    /**
     * Full state of a new partition (a created topic, or a partition added by CreatePartitions), or of an existing
     * one in a snapshot, where a reassignment in progress carries its adding and removing replicas.
     */
    record PartitionRecord(Uuid topicId, int partition, List<Integer> replicas, List<Integer> isr, int leader,
                           int leaderEpoch, int partitionEpoch, List<Integer> addingReplicas,
                           List<Integer> removingReplicas) implements MetadataRecord {
        public PartitionRecord {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
            addingReplicas = List.copyOf(addingReplicas);
            removingReplicas = List.copyOf(removingReplicas);
        }

        public PartitionRecord(Uuid topicId, int partition, List<Integer> replicas, List<Integer> isr, int leader,
                               int leaderEpoch, int partitionEpoch) {
            this(topicId, partition, replicas, isr, leader, leaderEpoch, partitionEpoch, List.of(), List.of());
        }
    }

    /**
     * A change of an existing partition's replica set (a reassignment starts, completes or is cancelled): the whole
     * new state. The leader epoch always moves by one, so every replica, old or new, acts on the new set (a leader
     * rebuilds its follower set, a removed replica's fetches are fenced); the partition epoch moves by one.
     */
    record PartitionReplicasRecord(Uuid topicId, int partition, List<Integer> replicas, List<Integer> isr, int leader,
                                   List<Integer> addingReplicas, List<Integer> removingReplicas, int leaderEpoch,
                                   int partitionEpoch) implements MetadataRecord {
        public PartitionReplicasRecord {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
            addingReplicas = List.copyOf(addingReplicas);
            removingReplicas = List.copyOf(removingReplicas);
        }
    }

    /**
     * A change of an existing partition. Absent fields are unchanged; the epochs are the partition's new epochs
     * (absolute, so replay is a plain overwrite).
     */
    record PartitionChangeRecord(Uuid topicId, int partition, Optional<List<Integer>> isr, OptionalInt leader,
                                 int leaderEpoch, int partitionEpoch) implements MetadataRecord {
        public PartitionChangeRecord {
            isr = isr.map(List::copyOf);
            Objects.requireNonNull(leader, "leader");
        }
    }

    record RemoveTopicRecord(Uuid topicId) implements MetadataRecord { }

    /**
     * Sets ({@code value != null}) or deletes ({@code value == null}) one config key of a resource: TOPIC
     * (name = topic name) or BROKER (name = broker id, or "" for the cluster-wide default).
     */
    record ConfigRecord(ConfigResource.Type resourceType, String resourceName, String key, String value)
            implements MetadataRecord {
        public ConfigRecord {
            Objects.requireNonNull(resourceType, "resourceType");
            Objects.requireNonNull(resourceName, "resourceName");
            Objects.requireNonNull(key, "key");
        }
    }

    /** Sets ({@code value != null}) or removes ({@code value == null}) one quota key of a client quota entity. */
    record ClientQuotaRecord(QuotaEntity entity, String key, Double value) implements MetadataRecord {
        public ClientQuotaRecord {
            Objects.requireNonNull(entity, "entity");
            Objects.requireNonNull(key, "key");
        }
    }
}
