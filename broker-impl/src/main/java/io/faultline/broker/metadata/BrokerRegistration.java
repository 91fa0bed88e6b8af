package io.faultline.broker.metadata;

import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A registered broker in the metadata image. {@code fenced} brokers may not lead or be in an ISR;
 * {@code inControlledShutdown} brokers asked to stop and are being drained of leaderships.
 */
public record BrokerRegistration(int id, Uuid incarnationId, long epoch, Map<String, Endpoint> endpoints,
                                 String rack, boolean fenced, boolean inControlledShutdown) {
    public BrokerRegistration {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = Map.copyOf(endpoints);
    }

    /** Unfenced and not shutting down: may become a leader or join an ISR. */
    public boolean isActive() {
        return !fenced && !inControlledShutdown;
    }

    BrokerRegistration withFenced(boolean f) {
        return new BrokerRegistration(id, incarnationId, epoch, endpoints, rack, f, f ? false : inControlledShutdown);
    }

    BrokerRegistration withControlledShutdown() {
        return new BrokerRegistration(id, incarnationId, epoch, endpoints, rack, fenced, true);
    }
}
