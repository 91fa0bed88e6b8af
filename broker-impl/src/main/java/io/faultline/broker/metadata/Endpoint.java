package io.faultline.broker.metadata;

import java.util.Objects;

/** A listener's advertised address, as a broker registers it. */
public record Endpoint(String host, int port) {
    public Endpoint {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port out of range: " + port);
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
