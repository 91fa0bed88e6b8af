package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;

import java.util.Optional;

/** A system whose partitions have leaders that faults can target. */
public interface LeaderAware {
    /** The node currently leading topic-partition, if the cluster can tell. */
    Optional<Node> leaderOf(Cluster cluster, String topic, int partition);
}
