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
        partitions = java.util.Collections.unmodifiableMap(new TreeMap<>(partitions));
    }

    public int partitionCount() {
        return partitions.size();
    }

    public PartitionRegistration partition(int index) {
        return partitions.get(index);
    }
}
