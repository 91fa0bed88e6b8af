package io.faultline.broker.metadata;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;

/**
 * What changed between two images: created and deleted topics, every partition whose registration changed
 * (with the old and new state, so a broker can become leader or follower at the epoch the new state carries),
 * brokers and configs that changed. Computed by comparing the images, so it is correct for any record batch.
 */
public final class MetadataDelta {

    /** One partition's change: {@code before} is null for a new partition, {@code after} null for a deleted one. */
    public record PartitionChange(TopicIdPartition partition, PartitionRegistration before,
                                  PartitionRegistration after) {
        public boolean leaderChanged() {
            return before == null || after == null || before.leader() != after.leader()
                    || before.leaderEpoch() != after.leaderEpoch();
        }
    }

    /** The partitions where {@code brokerId} has a replica, split by the role it should now have. */
    public record LocalChanges(Map<TopicIdPartition, PartitionRegistration> leaders,
                               Map<TopicIdPartition, PartitionRegistration> followers,
                               Set<TopicIdPartition> deletes) {
        public LocalChanges {
            leaders = Map.copyOf(leaders);
            followers = Map.copyOf(followers);
            deletes = Set.copyOf(deletes);
        }

        public boolean isEmpty() {
            return leaders.isEmpty() && followers.isEmpty() && deletes.isEmpty();
        }
    }

    private final MetadataImage before;
    private final MetadataImage after;
    private final Map<Uuid, TopicImage> createdTopics = new HashMap<>();
    private final Map<Uuid, TopicImage> deletedTopics = new HashMap<>();
    private final List<PartitionChange> partitionChanges = new ArrayList<>();
    private final Set<Integer> changedBrokers = new HashSet<>();
    private final Set<String> changedTopicConfigs = new HashSet<>();
    private final boolean brokerConfigsChanged;

    private MetadataDelta(MetadataImage before, MetadataImage after) {
        this.before = Objects.requireNonNull(before);
        this.after = Objects.requireNonNull(after);
        after.topicsById().forEach((id, t) -> {
            TopicImage old = before.topicsById().get(id);
            if (old == null) createdTopics.put(id, t);
            if (old != t) diffPartitions(t.name(), id, old, t);
        });
        before.topicsById().forEach((id, t) -> {
            if (!after.topicsById().containsKey(id)) {
                deletedTopics.put(id, t);
                diffPartitions(t.name(), id, t, null);
            }
        });
        Set<Integer> brokerIds = new HashSet<>(before.brokers().keySet());
        brokerIds.addAll(after.brokers().keySet());
        for (int id : brokerIds) {
            if (!Objects.equals(before.brokers().get(id), after.brokers().get(id))) changedBrokers.add(id);
        }
        Set<String> topicNames = new HashSet<>(before.topicConfigs().keySet());
        topicNames.addAll(after.topicConfigs().keySet());
        for (String n : topicNames) {
            if (!Objects.equals(before.topicConfigs().get(n), after.topicConfigs().get(n))) changedTopicConfigs.add(n);
        }
        brokerConfigsChanged = !before.brokerConfigs().equals(after.brokerConfigs());
    }

    public static MetadataDelta between(MetadataImage before, MetadataImage after) {
        return new MetadataDelta(before, after);
    }

    private void diffPartitions(String name, Uuid id, TopicImage old, TopicImage now) {
        Set<Integer> indexes = new HashSet<>();
        if (old != null) indexes.addAll(old.partitions().keySet());
        if (now != null) indexes.addAll(now.partitions().keySet());
        for (int p : indexes) {
            PartitionRegistration b = old == null ? null : old.partition(p);
            PartitionRegistration a = now == null ? null : now.partition(p);
            if (!Objects.equals(a, b)) partitionChanges.add(new PartitionChange(new TopicIdPartition(id, p, name), b, a));
        }
    }

    public MetadataImage before() {
        return before;
    }

    public MetadataImage after() {
        return after;
    }

    public Map<Uuid, TopicImage> createdTopics() {
        return Collections.unmodifiableMap(createdTopics);
    }

    public Map<Uuid, TopicImage> deletedTopics() {
        return Collections.unmodifiableMap(deletedTopics);
    }

    public List<PartitionChange> partitionChanges() {
        return Collections.unmodifiableList(partitionChanges);
    }

    public Set<Integer> changedBrokers() {
        return Collections.unmodifiableSet(changedBrokers);
    }

    public Set<String> changedTopicConfigs() {
        return Collections.unmodifiableSet(changedTopicConfigs);
    }

    public boolean brokerConfigsChanged() {
        return brokerConfigsChanged;
    }

    public boolean isEmpty() {
        return createdTopics.isEmpty() && deletedTopics.isEmpty() && partitionChanges.isEmpty()
                && changedBrokers.isEmpty() && changedTopicConfigs.isEmpty() && !brokerConfigsChanged;
    }

    /**
     * The changed partitions that concern {@code brokerId}: where it now leads, where it is now a (changed)
     * follower, and where it was a replica but is no longer (topic deleted).
     */
    public LocalChanges localChanges(int brokerId) {
        Map<TopicIdPartition, PartitionRegistration> leaders = new HashMap<>();
        Map<TopicIdPartition, PartitionRegistration> followers = new HashMap<>();
        Set<TopicIdPartition> deletes = new HashSet<>();
        for (PartitionChange c : partitionChanges) {
            PartitionRegistration a = c.after();
            if (a != null && a.replicas().contains(brokerId)) {
                if (a.leader() == brokerId) leaders.put(c.partition(), a); else followers.put(c.partition(), a);
            } else if (c.before() != null && c.before().replicas().contains(brokerId)) {
                deletes.add(c.partition());
            }
        }
        return new LocalChanges(leaders, followers, deletes);
    }

    @Override
    public String toString() {
        return "MetadataDelta{" + before.offset() + "->" + after.offset() + ", created=" + createdTopics.size()
                + ", deleted=" + deletedTopics.size() + ", partitions=" + partitionChanges.size()
                + ", brokers=" + changedBrokers + "}";
    }
}
