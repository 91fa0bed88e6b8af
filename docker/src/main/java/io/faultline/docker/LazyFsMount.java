package io.faultline.docker;

import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Device;
import com.github.dockerjava.api.model.HostConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Nodes whose data directory ({@link #DATA}) is served by lazyfs (the {@code lazyfs} module), a FUSE filesystem
 * that can forget every write not yet fsynced: power loss. The common node layer carries it; node-run mounts it
 * when the node's environment names the directory ({@link #ENV}). Such a node's container gets the FUSE device
 * and CAP_SYS_ADMIN (mounting needs it: FUSE mounts and the bind mount of the backing directory; no other
 * privilege). Commands go through the filesystem's control pipe with {@code docker exec}.
 */
public final class LazyFsMount {
    /** node-run mounts lazyfs over this directory when set. */
    public static final String ENV = "FAULTLINE_LAZYFS";
    /** Every system under test keeps its data under /data. */
    public static final String DATA = "/data";
    static final String CONTROL_DIR = "/run/faultline-lazyfs";
    private static final AtomicLong IDS = new AtomicLong();

    private LazyFsMount() {}

    /** The node spec with its data directory on lazyfs. */
    public static NodeSpec on(NodeSpec spec) {
        return spec.withEnv(Map.of(ENV, DATA));
    }

    public static boolean wanted(NodeSpec spec) {
        return spec.env().containsKey(ENV);
    }

    /** What the container needs to mount FUSE: the device and CAP_SYS_ADMIN (besides what it has). */
    static void grant(HostConfig host) {
        List<Capability> caps = new ArrayList<>(host.getCapAdd() == null ? List.of() : Arrays.asList(host.getCapAdd()));
        if (!caps.contains(Capability.SYS_ADMIN)) caps.add(Capability.SYS_ADMIN);
        host.withCapAdd(caps.toArray(Capability[]::new));
        host.withDevices(Device.parse("/dev/fuse:/dev/fuse:rwm"));
    }

    /**
     * Power loss on a running node's disk: every file back to its last fsync, un-synced directory operations
     * undone, and from then on every file operation fails with EIO. Freeze the node program first (SIGSTOP) so it
     * cannot act on those errors, and kill it next.
     * Returns the filesystem's answer ("ok Forgotten[...]"); throws when it does not answer.
     */
    public static String crash(Node node) {
        return command(node, "crash");
    }

    /** Jepsen lazyfs's clear-cache: revert to the fsynced image and go on serving. */
    public static String forget(Node node) {
        return command(node, "forget");
    }

    public static String status(Node node) {
        return command(node, "status");
    }

    private static String command(Node node, String command) {
        String id = "c" + ProcessHandle.current().pid() + "-" + IDS.incrementAndGet();
        String reply = CONTROL_DIR + "/" + id + ".reply";
        // The pipe write returns once lazyfs has read the line; the reply file appears when it is done.
        String sh = "[ -p " + CONTROL_DIR + "/control ] || { echo 'no lazyfs on this node' >&2; exit 3; }; "
                + "echo '" + command + " " + id + "' > " + CONTROL_DIR + "/control && i=0; "
                + "until [ -e " + reply + " ]; do i=$((i+1)); [ $i -gt 1200 ] && { echo 'lazyfs did not answer' >&2; exit 2; }; "
                + "sleep 0.025; done; cat " + reply + "; rm -f " + reply;
        ExecResult r = node.exec(Duration.ofSeconds(60), "timeout", "45", "sh", "-c", sh);
        if (r.exitCode() != 0 || !r.stdout().startsWith("ok")) {
            throw new IllegalStateException(node.name() + ": lazyfs " + command + " failed (exit " + r.exitCode() + "): "
                    + r.stdout().trim() + " " + r.stderr().trim());
        }
        return r.stdout().trim();
    }

    /** The lazyfs jars Maven copied: docker/target/lazyfs-libs, or -Dfaultline.lazyfs.libs. */
    static Path libsDirectory() {
        String explicit = System.getProperty("faultline.lazyfs.libs");
        if (explicit != null) return Path.of(explicit);
        String root = System.getProperty("faultline.projectRoot");
        for (Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path libs = dir.resolve("docker/target/lazyfs-libs");
            if (Files.isDirectory(libs) && hasLazyFsJar(libs)) return libs;
        }
        throw new IllegalStateException("lazyfs jars not found: build the project first (./mvnw install -DskipTests)"
                + " or pass -Dfaultline.lazyfs.libs=DIR");
    }

    private static boolean hasLazyFsJar(Path libs) {
        try (var s = Files.list(libs)) {
            return s.anyMatch(p -> p.getFileName().toString().startsWith("lazyfs-"));
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
