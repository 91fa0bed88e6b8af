package io.faultline.lazyfs;

import jnr.ffi.LibraryLoader;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * FUSE on the machine this JVM runs on: {@code /dev/fuse} and libfuse2, the library jnr-fuse loads when a
 * {@link LazyFs} is made. Checked once per JVM. When libfuse2 is missing and this is root on a machine with apt, it is
 * installed on the spot (provision-fuse.sh), as the Docker engine is provisioned; otherwise {@link Unavailable} says
 * in one line what to install, instead of jnr's UnsatisfiedLinkError with its stack trace.
 */
public final class HostFuse {
    private static final String LIBRARY = "libfuse.so.2";
    private static final String SCRIPT = "provision-fuse.sh";
    private static final long PROVISION_TIMEOUT_SECONDS = 600;

    /** Why FUSE cannot be had here, in one line; carries no stack trace (the line is the whole story). */
    public static final class Unavailable extends RuntimeException {
        Unavailable(String message) {
            super(message, null, false, false);
        }
    }

    /** The outcome, once known: null (not yet checked), "" (available), else the reason it is not. */
    private static String outcome;

    private HostFuse() {}

    /** Whether libfuse2 can be loaded (exactly as jnr-fuse loads it). */
    static boolean libraryLoads() {
        try {
            LibraryLoader.create(Probe.class).failImmediately().load(LIBRARY);
            return true;
        } catch (LinkageError | RuntimeException e) {
            return false;
        }
    }

    /** Any function of libfuse2, so the loader has something to bind. */
    public interface Probe {
        int fuse_version();
    }

    /**
     * Returns when FUSE can be mounted from this JVM, provisioning libfuse2 first when it can; throws
     * {@link Unavailable} otherwise (the same one-line reason on every later call, without retrying).
     */
    public static synchronized void ensureAvailable() {
        if (outcome == null) outcome = check();
        if (!outcome.isEmpty()) throw new Unavailable(outcome);
    }

    private static String check() {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            return "FUSE unavailable: /dev/fuse is missing (this kernel or container has no FUSE; a container needs "
                    + "--device /dev/fuse --cap-add SYS_ADMIN)";
        }
        if (libraryLoads()) return "";
        String provisioned = provision();
        if (!provisioned.isEmpty()) return provisioned;
        return libraryLoads() ? "" : "FUSE unavailable: " + LIBRARY + " still cannot be loaded after installing "
                + "libfuse2; install it with: apt-get install -y libfuse2 fuse";
    }

    /**
     * Runs provision-fuse.sh, which installs libfuse2 when root with apt and otherwise says in one line what to
     * install; "" when it succeeded, else that line.
     */
    private static String provision() {
        try (InputStream script = HostFuse.class.getResourceAsStream(SCRIPT)) {
            if (script == null) return "FUSE unavailable: " + SCRIPT + " is missing from the lazyfs jar; install libfuse2";
            Path file = Files.createTempFile("faultline-provision-fuse", ".sh");
            Path log = Files.createTempFile("faultline-provision-fuse", ".log");
            try {
                Files.write(file, script.readAllBytes());
                Process p = new ProcessBuilder("sh", file.toString()).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                        .start();
                if (!p.waitFor(PROVISION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    return "FUSE unavailable: installing libfuse2 did not finish in " + PROVISION_TIMEOUT_SECONDS
                            + " s; install it with: apt-get install -y libfuse2 fuse";
                }
                String output = Files.readString(log, StandardCharsets.UTF_8).strip();
                if (p.exitValue() == 0) {
                    // The script's progress lines are the only sign that packages were installed on this machine.
                    if (!output.isEmpty()) System.err.println(output);
                    return "";
                }
                String last = output.isEmpty() ? "exit status " + p.exitValue() : output.substring(output.lastIndexOf('\n') + 1);
                return "FUSE unavailable: " + last.replaceFirst("^faultline: ", "");
            } finally {
                Files.deleteIfExists(file);
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            return "FUSE unavailable: could not run " + SCRIPT + " (" + e.getMessage() + "); install libfuse2";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "FUSE unavailable: interrupted while installing libfuse2";
        }
    }
}
