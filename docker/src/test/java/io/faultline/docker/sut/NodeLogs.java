package io.faultline.docker.sut;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Where a Docker-backed test collects its nodes' files: kept under target/ so a failed run can be read afterwards. */
final class NodeLogs {
    private NodeLogs() {}

    /** target/collected/NAME, emptied first (a previous run's files would mislead). */
    static Path freshDir(String name) {
        Path dir = Path.of("target", "collected", name).toAbsolutePath();
        try {
            if (Files.exists(dir)) {
                try (Stream<Path> all = Files.walk(dir)) {
                    for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
                }
            }
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir, e);
        }
    }
}
