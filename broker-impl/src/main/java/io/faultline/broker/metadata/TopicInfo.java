package io.faultline.broker.metadata;

import java.util.Map;
import org.apache.kafka.common.Uuid;

/** A topic as this node knows it: name, stable id (clients cache it), partition count and topic configs. */
public record TopicInfo(String name, Uuid id, int partitions, Map<String, String> configs) {
    public TopicInfo {
        configs = Map.copyOf(configs);
    }
}
