package io.faultline.broker.metadata;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/** A topic in the metadata image with its partitions by index (0..n-1). */
public record TopicImage(String name, Uuid id, Map<Integer, PartitionRegistration> partitions) {
    public TopicImage {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
        TreeMap<Integer, PartitionRegistration> sorted = new TreeMap<>(partitions);
        if (!sorted.isEmpty() && (sorted.firstKey() != 0 || sorted.lastKey() != sorted.size() - 1)) {
            throw new IllegalStateException("topic " + name + " partitions are not numbered 0.." + (sorted.size() - 1)
                    + ": " + sorted.keySet());
        }
        partitions = java.util.Collections.unmodifiableMap(sorted);
    }

    public int partitionCount() {
        return partitions.size();
    }

    public PartitionRegistration partition(int index) {
        return partitions.get(index);
    }
}
