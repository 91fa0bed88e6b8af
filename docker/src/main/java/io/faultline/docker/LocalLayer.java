package io.faultline.docker;

import com.github.dockerjava.api.DockerClient;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A container's files read where a local engine keeps them (overlay2: the container's own writable layer over the
 * image's layers), instead of through the engine's archive API, which streams every byte of a sparse file: a broker's
 * preallocated indexes made a 5-node Kafka run's collection about 1.4 GB and 10 s of mostly zeros, where the files
 * hold 40 MB. Used only where it gives exactly what the archive would: the engine is on this machine, uses overlay2,
 * its files are readable here, and no file under the path comes from the image (then the writable layer holds all
 * of them). Anything else: empty, and the caller goes through the engine.
 */
final class LocalLayer {
    private final Path upper;
    private final List<Path> lowers;

    private LocalLayer(Path upper, List<Path> lowers) {
        this.upper = upper;
        this.lowers = lowers;
    }

    /** The container's layers on this machine, or empty when the engine is not local, not overlay2 or not readable. */
    static Optional<LocalLayer> of(DockerClient client, String containerId) {
        try {
            var info = client.infoCmd().exec();
            if (!"overlay2".equals(info.getDriver()) || info.getDockerRootDir() == null) return Optional.empty();
            Path root = Path.of(info.getDockerRootDir());
            String fullId = client.inspectContainerCmd(containerId).exec().getId();
            Path mountIdFile = root.resolve("image/overlay2/layerdb/mounts").resolve(fullId).resolve("mount-id");
            if (!Files.isReadable(mountIdFile)) return Optional.empty();
            Path layer = root.resolve("overlay2").resolve(Files.readString(mountIdFile).strip());
            Path upper = layer.resolve("diff");
            Path lowerFile = layer.resolve("lower");
            if (!Files.isDirectory(upper) || !Files.isReadable(lowerFile)) return Optional.empty();
            List<Path> lowers = new ArrayList<>();
            for (String l : Files.readString(lowerFile).strip().split(":")) {
                if (l.isBlank()) continue;
                Path lower = root.resolve("overlay2").resolve(l);
                if (!Files.isDirectory(lower)) return Optional.empty();
                lowers.add(lower);
            }
            return Optional.of(new LocalLayer(upper, lowers));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The path in the writable layer when every file under it was written by the container (the image holds at most
     * empty directories there); empty when the image has files there or the container wrote nothing at the path.
     */
    Optional<Path> whollyWritten(String path) {
        String relative = path.replaceFirst("^/+", "");
        Path mine = upper.resolve(relative).normalize();
        if (!mine.startsWith(upper) || !Files.exists(mine)) return Optional.empty();
        for (Path lower : lowers) {
            Path theirs = lower.resolve(relative).normalize();
            if (!Files.exists(theirs)) continue;
            if (!Files.isDirectory(theirs)) return Optional.empty();
            try (Stream<Path> walk = Files.walk(theirs)) {
                if (walk.anyMatch(p -> !Files.isDirectory(p))) return Optional.empty();
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
        return Optional.of(mine);
    }

    /**
     * Copies a file or directory of the writable layer to {@code target} as the archive API would: regular files
     * (sparsely) and directories; nothing else (overlay's deletion markers are character devices).
     */
    static void copyTree(Path source, Path target) throws IOException {
        if (copiedByCp(source, target)) return;
        try (Stream<Path> walk = Files.walk(source)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path to = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(to);
                } else if (Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(to.getParent());
                    try (InputStream in = Files.newInputStream(p)) {
                        SparseCopy.copy(in, to);
                    }
                }
            }
        }
    }

    /**
     * coreutils' cp finds a sparse file's holes without reading them (SEEK_HOLE): a gigabyte of preallocated index in
     * well under a second, where reading it (as {@link SparseCopy} must) took 4 s on a cold JVM at load 12. False when
     * cp is missing or failed (the caller copies in Java).
     */
    private static boolean copiedByCp(Path source, Path target) throws IOException {
        if (Files.isDirectory(source, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(target);
            return QuietCommand.succeeds(java.time.Duration.ofMinutes(2), List.of("cp", "-R", "--sparse=always", source + "/.", target + "/"));
        }
        Files.createDirectories(target.getParent());
        return QuietCommand.succeeds(java.time.Duration.ofMinutes(2), List.of("cp", "--sparse=always", source.toString(), target.toString()));
    }
}
