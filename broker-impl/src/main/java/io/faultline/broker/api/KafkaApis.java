package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import io.faultline.broker.network.RequestDispatcher;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each request to the handler of its API family. A handler that throws gets the API's generic error
 * response (every generated request type knows how to build one), so one bad request never costs the connection.
 */
public final class KafkaApis implements RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(KafkaApis.class);

    private final BrokerContext ctx;
    private final Map<ApiKeys, Consumer<Request>> handlers = new EnumMap<>(ApiKeys.class);

    public KafkaApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    /** Registers the handler of one API; only registered APIs are served. */
    public KafkaApis register(ApiKeys api, Consumer<Request> handler) {
        handlers.put(api, handler);
        return this;
    }

    /** The registered handler of an API (null if none), for a wiring that extends it. */
    public Consumer<Request> handler(ApiKeys api) {
        return handlers.get(api);
    }

    @Override
    public void handle(Request r) {
        Consumer<Request> h = handlers.get(r.apiKey());
        if (h == null) {
            log.warn("No handler for {}; closing the connection", r);
            ctx.channel().closeConnection(r);
            return;
        }
        try {
            h.accept(r);
        } catch (RuntimeException e) {
            log.warn("Error handling {}: {}", r, e.toString(), e);
            if (r.body() == null) {
                ctx.channel().closeConnection(r);
            } else {
                ctx.channel().sendResponse(r, r.body().getErrorResponse(0, e).data());
            }
        }
    }
}
