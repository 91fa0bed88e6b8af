package io.faultline.broker.metadata;

import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A registered broker in the metadata image. {@code fenced} brokers may not lead or be in an ISR;
 * {@code inControlledShutdown} brokers asked to stop and are being drained of leaderships. {@code registeredAt}
 * is the offset of the log entry that holds its registration: the broker has caught up with the metadata (and
 * may be unfenced) once it has applied that entry. Part of the replicated image, so it survives failovers.
 */
public record BrokerRegistration(int id, Uuid incarnationId, long epoch, Map<String, Endpoint> endpoints,
                                 String rack, boolean fenced, boolean inControlledShutdown, long registeredAt) {
    public BrokerRegistration {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = Map.copyOf(endpoints);
    }

    /** Unfenced and not shutting down: may become a leader or join an ISR. */
    public boolean isActive() {
        return !fenced && !inControlledShutdown;
    }

    BrokerRegistration withFenced(boolean f) {
        return new BrokerRegistration(id, incarnationId, epoch, endpoints, rack, f, f ? false : inControlledShutdown,
                registeredAt);
    }

    BrokerRegistration withRegisteredAt(long offset) {
        return new BrokerRegistration(id, incarnationId, epoch, endpoints, rack, fenced, inControlledShutdown, offset);
    }

    BrokerRegistration withControlledShutdown() {
        return new BrokerRegistration(id, incarnationId, epoch, endpoints, rack, fenced, true, registeredAt);
    }
}
