package io.faultline.lazyfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;
import java.util.stream.Stream;

/**
 * A LazyFs mounted on the host for one test: {@code backing/} seen through {@code mount/}.
 *
 * <p>A test blocked in a system call on a FUSE mount cannot be interrupted, so a hang would stop the whole build
 * (it did once in CI, for 13 minutes). A watchdog bounds each mount's life: past {@link #HANG_BOUND_MS} it prints
 * every thread's stack and the host's FUSE mounts, then aborts the mount's connection, which fails the blocked
 * calls with ENOTCONN, so the test fails with the evidence instead of hanging.
 */
final class Mounted implements AutoCloseable {
    /** Far above any test's need (each takes well under a second); a bound, not a timing. */
    static final long HANG_BOUND_MS = 180_000;

    final Path dir;
    final Path backing;
    final Path mount;
    final LazyFs fs;
    private final Timer watchdog = new Timer("lazyfs-test-watchdog", true);

    Mounted() throws IOException {
        dir = Files.createTempDirectory("lazyfs-test");
        backing = Files.createDirectories(dir.resolve("backing"));
        mount = Files.createDirectories(dir.resolve("mount"));
        fs = new LazyFs(backing);
        String test = testName();
        watchdog.schedule(new TimerTask() {
            @Override
            public void run() {
                reportHang(test);
                fs.abortConnection();
            }
        }, HANG_BOUND_MS);
        fs.mountInBackground(mount, LazyFsMain.mountOptions(), 30_000);
    }

    Path path(String name) {
        return mount.resolve(name);
    }

    boolean isMounted() throws IOException {
        return Files.readAllLines(Path.of("/proc/mounts")).stream().anyMatch(l -> l.contains(" " + mount + " fuse"));
    }

    /** fsync of a directory of the mount. */
    void syncDir(String name) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(name.isEmpty() ? mount : mount.resolve(name))) {
            ch.force(true);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            fs.close();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (isMounted() && System.nanoTime() < deadline) sleep(20);
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        } finally {
            watchdog.cancel();
        }
    }

    private void reportHang(String test) {
        StringBuilder out = new StringBuilder("lazyfs test watchdog: " + test + " still holds " + mount + " after "
                + HANG_BOUND_MS / 1000 + " s; aborting its FUSE connection. Threads:\n");
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            out.append("\"").append(e.getKey().getName()).append("\" ").append(e.getKey().getState()).append('\n');
            for (StackTraceElement f : e.getValue()) out.append("    at ").append(f).append('\n');
        }
        try {
            out.append("FUSE mounts:\n");
            Files.readAllLines(Path.of("/proc/mounts")).stream().filter(l -> l.contains("fuse"))
                    .forEach(l -> out.append("    ").append(l).append('\n'));
        } catch (IOException e) {
            out.append("    (cannot read /proc/mounts: ").append(e).append(")\n");
        }
        System.err.print(out);
    }

    /** The calling test's class and method, for the hang report. */
    private static String testName() {
        return StackWalker.getInstance().walk(s -> s.filter(f -> f.getClassName().endsWith("Test"))
                .map(f -> f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1) + "." + f.getMethodName())
                .findFirst().orElse("a lazyfs test"));
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
