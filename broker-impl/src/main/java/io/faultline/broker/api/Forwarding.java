package io.faultline.broker.api;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.network.Request;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client requests the controller owns (CreateTopics, DeleteTopics, CreatePartitions, AlterConfigs...) are forwarded to
 * the active controller, as Kafka's brokers forward them, and answered with its result once this node's metadata
 * shows the effect (so a client that asks this node next sees what it just did), or after a bounded wait anyway.
 */
final class Forwarding {
    private static final Logger log = LoggerFactory.getLogger(Forwarding.class);

    private Forwarding() {
    }

    static void forward(BrokerContext ctx, Request r, Function<ApiMessage, Predicate<MetadataImage>> effectVisible) {
        forward(ctx, r, r.body().data(), Function.identity(), effectVisible);
    }

    /**
     * Forwards {@code body} (the part of {@code r} the controller owns) and answers {@code r} with the controller's
     * response completed by {@code finish} (which adds what this broker answered itself).
     */
    static void forward(BrokerContext ctx, Request r, ApiMessage body, Function<ApiMessage, ApiMessage> finish,
                        Function<ApiMessage, Predicate<MetadataImage>> effectVisible) {
        ctx.metadata().sendToController(r.apiKey(), r.version(), body)
                .thenApply(finish)
                .thenCompose(resp -> ctx.metadata().await(effectVisible.apply(resp), BrokerContext.METADATA_CATCH_UP_MS)
                        .handle((img, e) -> {
                            if (e != null) log.warn("{}: answered before this node's metadata caught up", r);
                            return resp;
                        }))
                .whenComplete((resp, e) -> {
                    if (e == null) {
                        ctx.channel().sendResponse(r, resp);
                    } else {
                        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                        log.warn("Forwarding {} to the controller failed: {}", r, cause.toString());
                        ctx.channel().sendResponse(r, r.body().getErrorResponse(0, cause).data());
                    }
                });
    }
}
