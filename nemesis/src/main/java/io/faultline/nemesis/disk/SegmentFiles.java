package io.faultline.nemesis.disk;

import io.faultline.docker.DockerEngine;
import io.faultline.docker.Node;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

/**
 * Finds Kafka-style segment files in a node's log directory: one folder per partition ({@code topic-N}) holding
 * {@code <base offset>.log} segments, zero-padded so that name order is offset order. Internal topics (names
 * starting with "__", e.g. the KRaft metadata log) are left alone: corrupting them is another experiment.
 */
final class SegmentFiles {
    /** A file under the log directory: path relative to it ("topic-0/000.log") and size. */
    record Entry(String relativePath, long size) {
        String partitionDir() {
            int slash = relativePath.indexOf('/');
            return slash < 0 ? "" : relativePath.substring(0, slash);
        }

        String fileName() {
            return relativePath.substring(relativePath.lastIndexOf('/') + 1);
        }
    }

    private SegmentFiles() {}

    /** Files two levels below logDir. With the node running a `find`; while it is down, the engine's archive. */
    static List<Entry> list(Node node, String logDir) {
        if (node.isRunning() && !node.isPaused()) {
            String out = node.exec("sh", "-c", "find '" + logDir + "' -mindepth 2 -maxdepth 2 -type f -printf '%P %s\\n'"
                    + " 2>/dev/null || true").stdout();
            List<Entry> entries = new ArrayList<>();
            for (String line : out.split("\n")) {
                int space = line.lastIndexOf(' ');
                if (space > 0) entries.add(new Entry(line.substring(0, space), Long.parseLong(line.substring(space + 1).strip())));
            }
            return entries;
        }
        return listFromArchive(node, logDir);
    }

    private static List<Entry> listFromArchive(Node node, String logDir) {
        List<Entry> entries = new ArrayList<>();
        try (InputStream tar = DockerEngine.client().copyArchiveFromContainerCmd(node.containerId(), logDir).exec();
             var in = new TarArchiveInputStream(tar)) {
            TarArchiveEntry e;
            while ((e = in.getNextEntry()) != null) {
                if (!e.isFile()) continue;
                String name = e.getName();
                int first = name.indexOf('/'); // the archive's names start with the directory's own name
                String relative = first < 0 ? name : name.substring(first + 1);
                if (relative.chars().filter(c -> c == '/').count() == 1) entries.add(new Entry(relative, e.getSize()));
            }
        } catch (com.github.dockerjava.api.exception.NotFoundException missing) {
            return entries;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return entries;
    }

    static boolean isUserPartition(String dir) {
        return !dir.startsWith("__") && !dir.startsWith(".") && dir.matches(".+-\\d+");
    }

    /** Partition dir -> its non-empty segment (.log) files, oldest first. */
    static Map<String, List<Entry>> segmentsByPartition(List<Entry> entries) {
        Map<String, List<Entry>> byDir = new TreeMap<>();
        for (Entry e : entries) {
            if (isUserPartition(e.partitionDir()) && e.fileName().endsWith(".log") && e.size() > 0) {
                byDir.computeIfAbsent(e.partitionDir(), k -> new ArrayList<>()).add(e);
            }
        }
        byDir.values().forEach(l -> l.sort(java.util.Comparator.comparing(Entry::fileName)));
        return byDir;
    }

    /** The newest non-empty segment of a random partition that has one. */
    static Optional<Entry> newestSegment(List<Entry> entries, Random random) {
        var byDir = segmentsByPartition(entries);
        if (byDir.isEmpty()) return Optional.empty();
        List<String> dirs = new ArrayList<>(byDir.keySet());
        List<Entry> segments = byDir.get(dirs.get(random.nextInt(dirs.size())));
        return Optional.of(segments.get(segments.size() - 1));
    }

    /** The newest non-empty segment of one partition directory (e.g. {@code topic-0}), if it has any here. */
    static Optional<Entry> newestSegmentOf(List<Entry> entries, String partitionDir) {
        List<Entry> segments = segmentsByPartition(entries).get(partitionDir);
        return segments == null || segments.isEmpty() ? Optional.empty() : Optional.of(segments.get(segments.size() - 1));
    }

    /** The index files (.index, .timeindex) of one partition. */
    static List<Entry> indexFiles(List<Entry> entries, String partitionDir) {
        return entries.stream().filter(e -> e.partitionDir().equals(partitionDir))
                .filter(e -> e.fileName().endsWith(".index") || e.fileName().endsWith(".timeindex")).toList();
    }
}
