package io.faultline.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Network;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Labels everything the project creates and removes it again. Several Faultline processes may share one
 * engine (parallel test JVMs, a CLI run), so leftovers are only those whose owning process is gone.
 */
public final class ResourceJanitor {
    private static final Logger LOG = LoggerFactory.getLogger(ResourceJanitor.class);
    public static final String MANAGED = "io.faultline.managed";
    public static final String RUN = "io.faultline.run";
    public static final String OWNER_PID = "io.faultline.owner-pid";
    /** The owner's host: a pid only means something on the machine (and pid namespace) that wrote it. */
    public static final String OWNER_HOST = "io.faultline.owner-host";
    private static final String HOST = hostIdentity();

    private ResourceJanitor() {}

    /** Labels for a resource of the given run, owned by this process. */
    public static Map<String, String> labels(String runId) {
        return Map.of(MANAGED, "true", RUN, runId, OWNER_PID, Long.toString(ProcessHandle.current().pid()),
                OWNER_HOST, HOST);
    }

    /** Removes every container and network of one run. */
    public static void removeRun(DockerClient client, String runId) {
        remove(client, labels -> runId.equals(labels.get(RUN)));
    }

    /** Removes resources of earlier runs whose process died without cleaning up (a crash, a SIGKILL). */
    public static void removeLeftoversOfDeadOwners(DockerClient client) {
        remove(client, labels -> {
            // Another machine or container sharing this engine: its pids are not ours to judge.
            if (!HOST.equals(labels.getOrDefault(OWNER_HOST, HOST))) return false;
            try {
                long pid = Long.parseLong(labels.getOrDefault(OWNER_PID, "-1"));
                return ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
            } catch (NumberFormatException e) {
                return true;
            }
        });
    }

    /** Every managed container and network left on the engine, for tests and diagnostics. */
    public static List<String> managedResourceNames(DockerClient client, String runId) {
        var names = new java.util.ArrayList<String>();
        for (Container c : client.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of(RUN, runId)).exec()) {
            names.add("container " + String.join(",", c.getNames()));
        }
        for (Network n : client.listNetworksCmd().withFilter("label", List.of(RUN + "=" + runId)).exec()) {
            names.add("network " + n.getName());
        }
        return names;
    }

    /** Host name plus this pid namespace's identity, so two processes with the same pid elsewhere never match. */
    private static String hostIdentity() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "unknown";
        }
        try {
            return host + "/" + java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/pid"));
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return host;
        }
    }

    private static void remove(DockerClient client, Predicate<Map<String, String>> which) {
        List<Container> doomed = client.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of(MANAGED, "true")).exec().stream().filter(c -> which.test(c.getLabels())).toList();
        // all at once: each removal waits on the engine (a forced one also kills), not on this machine's cores
        Concurrently.forEach(doomed, "faultline-remove", c -> {
            try {
                client.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
                LOG.debug("removed container {}", (Object) c.getNames());
            } catch (RuntimeException e) {
                LOG.warn("could not remove container {}: {}", c.getNames(), e.getMessage());
            }
        });
        for (Network n : client.listNetworksCmd().withFilter("label", List.of(MANAGED + "=true")).exec()) {
            if (!which.test(n.getLabels())) continue;
            try {
                client.removeNetworkCmd(n.getId()).exec();
                LOG.debug("removed network {}", n.getName());
            } catch (RuntimeException e) {
                LOG.warn("could not remove network {}: {}", n.getName(), e.getMessage());
            }
        }
    }
}
