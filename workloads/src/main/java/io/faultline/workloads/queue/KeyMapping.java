package io.faultline.workloads.queue;

import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The bijection between the workload's integer keys and Kafka topic-partitions: key k is partition
 * {@code k % n} of topic {@code prefix-(k / n)}, where n is partitions per topic.
 */
public record KeyMapping(String prefix, int partitionsPerTopic) {

    public TopicPartition partitionOf(int key) {
        return new TopicPartition(topicOf(key), key % partitionsPerTopic);
    }

    public String topicOf(int key) {
        return prefix + "-" + (key / partitionsPerTopic);
    }

    /** The key of a topic-partition, or -1 if it is not one of ours. */
    public int keyOf(String topic, int partition) {
        if (!topic.startsWith(prefix + "-") || partition < 0 || partition >= partitionsPerTopic) {
            return -1;
        }
        try {
            int t = Integer.parseInt(topic.substring(prefix.length() + 1));
            return t < 0 ? -1 : t * partitionsPerTopic + partition;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public List<TopicPartition> partitionsOf(Collection<Integer> keys) {
        List<TopicPartition> out = new ArrayList<>(keys.size());
        for (int k : keys) {
            out.add(partitionOf(k));
        }
        return out;
    }

    public Set<String> topicsOf(Collection<Integer> keys) {
        Set<String> out = new LinkedHashSet<>();
        for (int k : keys) {
            out.add(topicOf(k));
        }
        return out;
    }
}
