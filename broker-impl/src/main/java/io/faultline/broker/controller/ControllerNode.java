package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One node's member of the metadata quorum (skeleton: the Ratis-backed implementation follows).
 */
public final class ControllerNode implements AutoCloseable {

    private ControllerNode() { }

    public static ControllerNode start(ControllerNodeConfig cfg) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** True while this node is the Raft leader and has applied everything committed before its term. */
    public boolean isActive() {
        return false;
    }

    /** The active controller as the local Raft view knows it (also on listeners). */
    public OptionalInt activeControllerId() {
        return OptionalInt.empty();
    }

    /** The latest committed image applied on this node. */
    public MetadataImage image() {
        return MetadataImage.EMPTY;
    }

    public void addListener(MetadataListener listener) { }

    /**
     * Handles BrokerRegistration, BrokerHeartbeat, AlterPartition, CreateTopics, DeleteTopics, CreatePartitions,
     * IncrementalAlterConfigs and AlterConfigs. Completes with the response once its records are committed;
     * NOT_CONTROLLER (in the response's error fields) when this node is not the active controller.
     */
    public CompletableFuture<ApiMessage> handle(RequestHeader header, ApiMessage request) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("not implemented yet"));
    }

    @Override
    public void close() { }
}
