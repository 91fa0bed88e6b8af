package io.faultline.nemesis.link;

import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.model.Toxic;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import io.faultline.docker.sut.KafkaProtocolSut;
import io.faultline.docker.sut.SystemUnderTest;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Nemesis;
import io.faultline.nemesis.NemesisContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Link faults through Toxiproxy: slow, flaky, throttled, one-way and sliced links between nodes. {@link #setup}
 * starts a {@link LinkRouter} (the proxy container and every node's routes); every fault is toxics added through
 * toxiproxy-java on the proxies that carry the hit directions.
 *
 * <p>Data from a to b travels on the connections a opens to b (proxy {@code a-b-port}, stream upstream) and on
 * those b opens to a (proxy {@code b-a-port}, stream downstream); a fault on a→b gets a toxic on both.
 *
 * <p>Ops: {@code start-link} (value: a {@link LinkFault}; replaces any link fault in force) and
 * {@code stop-link}, which removes every toxic and enables every proxy, then checks that it did.
 */
public final class LinkNemesis implements Nemesis {
    public static final String START = "start-link";
    public static final String STOP = "stop-link";
    private static final Logger LOG = LoggerFactory.getLogger(LinkNemesis.class);

    private final List<Integer> ports;
    private final List<Integer> clientPorts;
    private LinkRouter router;

    /** Routes the given ports between nodes; empty: the system under test's inter-node ports. Clients go direct. */
    public LinkNemesis(List<Integer> ports) {
        this(ports, List.of());
    }

    /** Also routes the host's client connections to these ports, for {@link LinkTarget.Clients} faults. */
    public LinkNemesis(List<Integer> ports, List<Integer> clientPorts) {
        this.ports = List.copyOf(ports);
        this.clientPorts = List.copyOf(clientPorts);
    }

    /**
     * The ports a system under test's nodes talk to each other on ({@link SystemUnderTest#peerPorts}): every listener,
     * the consensus ports and a ZooKeeper ensemble's, so a slowed link slows replication and metadata too.
     */
    public static List<Integer> interNodePorts(Optional<SystemUnderTest> sut) {
        return sut.map(SystemUnderTest::peerPorts).orElse(List.of(KafkaProtocolSut.PORT));
    }

    @Override
    public Set<String> fs() {
        return Set.of(START, STOP);
    }

    @Override
    public synchronized void setup(NemesisContext ctx) {
        if (router != null) return;
        List<Integer> routed = ports.isEmpty() ? interNodePorts(ctx.sut()) : ports;
        router = LinkRouter.start(ctx.cluster(), routed, clientPorts);
        LOG.info("links routed through toxiproxy at {} ({} proxies, ports {})", router.ip(), router.routes().size(), routed);
    }

    /** The router set up by {@link #setup}; for checks and tests. */
    public synchronized LinkRouter router() {
        if (router == null) throw new IllegalStateException("link nemesis not set up");
        return router;
    }

    @Override
    public synchronized FaultOp invoke(NemesisContext ctx, FaultOp op) {
        return switch (op.f()) {
            case START -> {
                if (!(op.value() instanceof LinkFault fault)) {
                    throw new IllegalArgumentException(START + " needs a LinkFault, got " + op.value());
                }
                heal();
                yield op.completed(apply(fault, fault.target().resolve(ctx, ctx.random())));
            }
            case STOP -> op.completed(heal());
            default -> throw new IllegalArgumentException("link nemesis cannot " + op.f());
        };
    }

    /** Adds the fault's toxics for these directions on every routed port; returns what was done. */
    public synchronized String apply(LinkFault fault, Set<DataLink> links) {
        return apply(fault, links, router().ports());
    }

    /**
     * Adds the fault's toxics for these directions (and their reverses unless one-way) on the given ports only,
     * e.g. Kafka's replication port without its controller port; returns what was done.
     */
    public synchronized String apply(LinkFault fault, Set<DataLink> links, List<Integer> ports) {
        if (!router().ports().containsAll(ports)) throw new IllegalArgumentException("ports " + ports + " are not all routed");
        boolean clients = links.stream().anyMatch(l -> l.from().equals(DataLink.CLIENTS) || l.to().equals(DataLink.CLIENTS));
        if (clients && router.clientPorts().isEmpty()) throw new IllegalStateException("client connections are not routed");
        Set<DataLink> hit = hit(fault, links);
        List<Placement> placements = placements(fault, hit, ports, router.clientPorts());
        try {
            for (Placement p : placements) fault.addTo(router.proxy(p.proxy()).toxics(), p.toxic(), p.stream());
        } catch (IOException e) {
            throw new UncheckedIOException("toxiproxy: " + fault, e);
        }
        List<String> usedPorts = placements.stream().map(p -> p.proxy().substring(p.proxy().lastIndexOf('-') + 1))
                .distinct().sorted().toList();
        return fault.kind() + " on " + LinkTarget.describe(hit) + " ports " + usedPorts + " (" + placements.size() + " toxics)";
    }

    /** One toxic to add: on which proxy, which stream, under which name. */
    public record Placement(String proxy, ToxicDirection stream, String toxic) {}

    /** The directions a fault hits: the target's, plus their reverses unless the fault is one-way. */
    static Set<DataLink> hit(LinkFault fault, Set<DataLink> links) {
        Set<DataLink> hit = new LinkedHashSet<>(links);
        if (fault.bothDirections()) links.forEach(l -> hit.add(l.reversed()));
        return hit;
    }

    /**
     * Where the toxics go: data from a to b is the upstream of the connections a opens to b (proxy a-b-port) and
     * the downstream of those b opens to a (proxy b-a-port). Clients only open connections: data from the clients
     * to n is the upstream of proxy clients-n-port, data from n to them its downstream.
     */
    static List<Placement> placements(LinkFault fault, Set<DataLink> hit, List<Integer> ports, List<Integer> clientPorts) {
        List<Placement> out = new ArrayList<>();
        for (DataLink link : hit) {
            String name = "faultline-" + fault.kind() + "-" + link.from() + "-" + link.to();
            if (link.from().equals(DataLink.CLIENTS) || link.to().equals(DataLink.CLIENTS)) {
                boolean toNode = link.from().equals(DataLink.CLIENTS);
                String node = toNode ? link.to() : link.from();
                for (int port : clientPorts) {
                    out.add(new Placement(LinkRouter.Route.proxyName(DataLink.CLIENTS, node, port),
                            toNode ? ToxicDirection.UPSTREAM : ToxicDirection.DOWNSTREAM, name));
                }
                continue;
            }
            for (int port : ports) {
                out.add(new Placement(LinkRouter.Route.proxyName(link.from(), link.to(), port), ToxicDirection.UPSTREAM, name));
                out.add(new Placement(LinkRouter.Route.proxyName(link.to(), link.from(), port), ToxicDirection.DOWNSTREAM, name));
            }
        }
        return out;
    }

    /** Removes every toxic and enables every proxy, then verifies it; returns what was done. */
    public synchronized String heal() {
        int removed = 0;
        int enabled = 0;
        try {
            for (Proxy p : router().client().getProxies()) {
                for (Toxic t : p.toxics().getAll()) {
                    t.remove();
                    removed++;
                }
                if (!p.isEnabled()) {
                    p.enable();
                    enabled++;
                }
            }
            List<String> left = problems();
            if (!left.isEmpty()) throw new IllegalStateException("links not healed: " + left);
        } catch (IOException e) {
            throw new UncheckedIOException("toxiproxy: heal", e);
        }
        return "all links clean (removed " + removed + " toxics, enabled " + enabled + " proxies)";
    }

    /** Toxics still in force and disabled proxies, one line each; empty when every link is clean. */
    public synchronized List<String> problems() {
        List<String> out = new ArrayList<>();
        try {
            for (Proxy p : router().client().getProxies()) {
                if (!p.isEnabled()) out.add(p.getName() + " disabled");
                for (Toxic t : p.toxics().getAll()) out.add(p.getName() + " has " + t.getName());
            }
        } catch (IOException e) {
            out.add("toxiproxy unreachable: " + e.getMessage());
        }
        return out;
    }

    @Override
    public synchronized void teardown(NemesisContext ctx) {
        if (router == null) return;
        try {
            router.close();
        } catch (RuntimeException e) {
            LOG.warn("link router teardown failed: {}", e.toString());
        }
        router = null;
    }
}
