package io.faultline.broker.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node's listeners with Kafka's names: {@code listeners}, {@code advertised.listeners},
 * {@code listener.security.protocol.map}, {@code inter.broker.listener.name}, {@code controller.listener.names}.
 * Broker listeners serve clients and replication; controller listeners serve the controller quorum's Kafka
 * messages (BrokerRegistration, BrokerHeartbeat, AlterPartition...). Only PLAINTEXT is implemented.
 *
 * @param listeners       every listener to bind, in the order given
 * @param advertised      what to tell others per listener name (defaults to the bind address)
 * @param interBroker     the listener followers fetch from (a broker listener)
 * @param controllerNames the controller listeners (empty: the quorum is this node alone, no controller port)
 */
public record ListenerConfig(List<Listener> listeners, Map<String, Listener> advertised, String interBroker,
                             List<String> controllerNames) {
    /** Kafka's default map, minus the protocols this broker does not implement (they are refused). */
    static final Map<String, String> DEFAULT_PROTOCOL_MAP = Map.of("PLAINTEXT", "PLAINTEXT", "CONTROLLER",
            "PLAINTEXT", "SSL", "SSL", "SASL_PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL", "SASL_SSL");

    public ListenerConfig {
        listeners = List.copyOf(listeners);
        advertised = Map.copyOf(advertised);
        controllerNames = List.copyOf(controllerNames);
    }

    /** Listeners that serve brokers' clients and replication (every listener that is not a controller one). */
    public List<Listener> brokerListeners() {
        List<Listener> out = new ArrayList<>();
        for (Listener l : listeners) if (!controllerNames.contains(l.name())) out.add(l);
        return out;
    }

    /** The first controller listener this node binds, if it binds one. */
    public Optional<Listener> controllerListener() {
        for (Listener l : listeners) if (controllerNames.contains(l.name())) return Optional.of(l);
        return Optional.empty();
    }

    /** The listener clients connect to first: the first broker listener. */
    public Listener clientListener() {
        return brokerListeners().get(0);
    }

    public Listener listener(String name) {
        for (Listener l : listeners) if (l.name().equals(name)) return l;
        throw new IllegalArgumentException("no listener " + name);
    }

    /**
     * Parses and checks the listener settings; problems are added to {@code problems} (the result is then null).
     */
    static ListenerConfig parse(PropertyReader p, List<String> problems) {
        int before = problems.size();
        List<Listener> listeners = parseList(p, "listeners", p.get("listeners", "PLAINTEXT://127.0.0.1:9092"), problems);
        Map<String, String> protocols = new LinkedHashMap<>(DEFAULT_PROTOCOL_MAP);
        String map = p.get("listener.security.protocol.map", null);
        if (map != null) {
            protocols.clear();
            for (String entry : map.split(",")) {
                String[] kv = entry.trim().split(":");
                if (kv.length != 2 || kv[0].isBlank() || kv[1].isBlank()) {
                    problems.add("listener.security.protocol.map: '" + entry.trim() + "' is not NAME:PROTOCOL");
                } else {
                    protocols.put(kv[0].trim().toUpperCase(), kv[1].trim().toUpperCase());
                }
            }
        }
        Map<String, Listener> byName = new LinkedHashMap<>();
        for (Listener l : listeners) {
            if (byName.put(l.name(), l) != null) problems.add("listeners: listener name " + l.name() + " appears twice");
            String protocol = protocols.get(l.name());
            if (protocol == null) {
                problems.add("listeners: listener " + l.name() + " has no entry in listener.security.protocol.map "
                        + protocols.keySet());
            } else if (!protocol.equals("PLAINTEXT")) {
                problems.add("listener.security.protocol.map: listener " + l.name() + " uses " + protocol
                        + "; only PLAINTEXT is implemented");
            }
        }
        List<String> controllerNames = new ArrayList<>();
        String cn = p.get("controller.listener.names", null);
        if (cn != null) {
            for (String n : cn.split(",")) if (!n.isBlank()) controllerNames.add(n.trim().toUpperCase());
        } else if (byName.containsKey("CONTROLLER")) {
            controllerNames.add("CONTROLLER");
        }
        for (String n : controllerNames) {
            if (!protocols.containsKey(n)) {
                problems.add("controller.listener.names: " + n + " has no entry in listener.security.protocol.map");
            }
        }
        List<Listener> brokerListeners = listeners.stream().filter(l -> !controllerNames.contains(l.name())).toList();
        if (brokerListeners.isEmpty() && !listeners.isEmpty()) {
            problems.add("listeners: no broker listener (every listener is in controller.listener.names "
                    + controllerNames + "); controller-only nodes are not supported");
        }
        String interBroker = p.get("inter.broker.listener.name", null);
        if (interBroker != null) {
            interBroker = interBroker.trim().toUpperCase();
            if (!byName.containsKey(interBroker)) {
                problems.add("inter.broker.listener.name: " + interBroker + " is not in listeners " + byName.keySet());
            } else if (controllerNames.contains(interBroker)) {
                problems.add("inter.broker.listener.name: " + interBroker + " is a controller listener");
            }
        } else if (!brokerListeners.isEmpty()) {
            // Kafka's default is the PLAINTEXT listener; with other names, the first broker listener.
            interBroker = byName.containsKey("PLAINTEXT") && !controllerNames.contains("PLAINTEXT") ? "PLAINTEXT"
                    : brokerListeners.get(0).name();
        }
        Map<String, Listener> advertised = new LinkedHashMap<>();
        String adv = p.get("advertised.listeners", null);
        if (adv != null) {
            for (Listener a : parseList(p, "advertised.listeners", adv, problems)) {
                if (!byName.containsKey(a.name())) {
                    problems.add("advertised.listeners: " + a.name() + " is not in listeners " + byName.keySet());
                } else if (a.wildcard()) {
                    problems.add("advertised.listeners: " + a + " must name a host others can reach, not a wildcard");
                } else if (advertised.put(a.name(), a) != null) {
                    problems.add("advertised.listeners: listener name " + a.name() + " appears twice");
                }
            }
        }
        if (problems.size() > before) return null;
        return new ListenerConfig(listeners, advertised, interBroker, controllerNames);
    }

    private static List<Listener> parseList(PropertyReader p, String key, String value, List<String> problems) {
        List<Listener> out = new ArrayList<>();
        if (value.isBlank()) {
            problems.add(key + ": empty");
            return out;
        }
        for (String raw : value.split(",")) {
            String s = raw.trim();
            int scheme = s.indexOf("://");
            int colon = s.lastIndexOf(':');
            if (scheme <= 0 || colon < scheme + 3) {
                problems.add(key + ": '" + s + "' is not NAME://host:port");
                continue;
            }
            String host = s.substring(scheme + 3, colon);
            if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
            try {
                int port = Integer.parseInt(s.substring(colon + 1));
                if (port < 0 || port > 65535) throw new NumberFormatException();
                out.add(new Listener(s.substring(0, scheme).toUpperCase(), host, port));
            } catch (NumberFormatException e) {
                problems.add(key + ": '" + s + "' has a bad port");
            }
        }
        return out;
    }
}
