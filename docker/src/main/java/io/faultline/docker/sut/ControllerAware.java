package io.faultline.docker.sut;

import io.faultline.docker.Cluster;
import io.faultline.docker.Node;

import java.util.Optional;

/** A system with an active controller that faults can target. */
public interface ControllerAware {
    /** The node that is the active controller (the Raft leader of the metadata quorum), if known. */
    Optional<Node> activeController(Cluster cluster);
}
