package io.faultline.broker.api;

import io.faultline.broker.metadata.MetadataImage;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/** What the API handlers know of the cluster: the committed metadata applied on this node, and the way to the controller. */
public interface ClusterMetadata {
    /** The latest committed metadata applied on this node. */
    MetadataImage image();

    /** The active controller as this node's quorum member knows it. */
    OptionalInt activeController();

    /**
     * Completes with the local image once it satisfies {@code condition} (at once if it already does), or
     * exceptionally with a TimeoutException after {@code timeoutMs}.
     */
    CompletableFuture<MetadataImage> await(Predicate<MetadataImage> condition, long timeoutMs);

    /**
     * Sends a request the controller owns (CreateTopics, DeleteTopics, CreatePartitions, configs...) to the active
     * controller, following NOT_CONTROLLER to the new one; completes with the controller's response.
     */
    CompletableFuture<ApiMessage> sendToController(ApiKeys api, short version, ApiMessage body);
}
