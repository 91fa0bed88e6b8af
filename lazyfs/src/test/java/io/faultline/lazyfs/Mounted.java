package io.faultline.lazyfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A LazyFs mounted on the host for one test: {@code backing/} seen through {@code mount/}. */
final class Mounted implements AutoCloseable {
    final Path dir;
    final Path backing;
    final Path mount;
    final LazyFs fs;

    Mounted() throws IOException {
        dir = Files.createTempDirectory("lazyfs-test");
        backing = Files.createDirectories(dir.resolve("backing"));
        mount = Files.createDirectories(dir.resolve("mount"));
        fs = new LazyFs(backing);
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
        fs.close();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (isMounted() && System.nanoTime() < deadline) sleep(20);
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
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
