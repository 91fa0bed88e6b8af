package io.faultline.broker.config;

import java.util.Objects;

/**
 * One named listener ({@code CLIENT://host:port}); an empty or wildcard host binds every interface.
 *
 * @param name the listener name, upper case (Kafka's listener names are case-insensitive on input)
 */
public record Listener(String name, String host, int port) {
    public Listener {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port out of range: " + port);
    }

    public boolean wildcard() {
        return host.isEmpty() || host.equals("0.0.0.0") || host.equals("::");
    }

    /** The host to bind: the wildcard address when none is given. */
    public String bindHost() {
        return host.isEmpty() ? "0.0.0.0" : host;
    }

    @Override
    public String toString() {
        return name + "://" + host + ":" + port;
    }
}
