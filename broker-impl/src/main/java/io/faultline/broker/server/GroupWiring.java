package io.faultline.broker.server;

import io.faultline.broker.api.KafkaApis;

/** Registers the group coordinator's APIs; returns its shutdown hook. */
final class GroupWiring {
    private GroupWiring() {
    }

    static Runnable wire(BrokerContext ctx, KafkaApis apis) {
        return () -> { };
    }
}
