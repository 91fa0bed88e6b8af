package io.faultline.results;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The on-disk store of runs and campaigns:
 * <pre>
 * store/&lt;test-name&gt;/&lt;yyyyMMdd'T'HHmmss.SSS&gt;/   one run (see {@link RunDir})
 * store/latest                                   symlink (or, where symlinks fail, a text file) → newest run
 * store/campaigns/&lt;name&gt;/&lt;timestamp&gt;/        index.html + campaign.json
 * </pre>
 * Timestamps are UTC, so folder names sort chronologically as strings.
 */
public final class RunStore {

    public static final Path DEFAULT_ROOT = Path.of("store");
    public static final String LATEST = "latest";
    public static final String CAMPAIGNS = "campaigns";
    static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** A run as listed: its verdict from results.json, or "running" / "incomplete" when that is absent. */
    public record RunEntry(String testName, String timestamp, Path dir, String verdict) {
        public boolean hasReport() {
            return Files.isRegularFile(dir.resolve("report.html"));
        }
    }

    /** A campaign as listed. */
    public record CampaignEntry(String name, String timestamp, Path dir) {
    }

    private final Path root;

    public RunStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public RunStore() {
        this(DEFAULT_ROOT);
    }

    public Path root() {
        return root;
    }

    /** Creates the run's folder (and nodes/), marks it running and points store/latest at it. */
    public RunDir newRun(String testName, Instant startedAt) throws IOException {
        String name = sanitize(testName);
        Path dir = createUnique(root.resolve(name), TIMESTAMP.format(startedAt));
        Files.createDirectories(dir.resolve("nodes"));
        Files.writeString(dir.resolve(RunDir.RUNNING_MARKER), Long.toString(ProcessHandle.current().pid()));
        pointLatestAt(dir);
        return new RunDir(dir, name, dir.getFileName().toString());
    }

    /** Creates store/campaigns/&lt;name&gt;/&lt;timestamp&gt;/. */
    public Path newCampaign(String campaignName, Instant at) throws IOException {
        return createUnique(root.resolve(CAMPAIGNS).resolve(sanitize(campaignName)), TIMESTAMP.format(at));
    }

    /** The newest run's folder, following store/latest. */
    public Optional<Path> latest() {
        Path link = root.resolve(LATEST);
        try {
            if (Files.isSymbolicLink(link)) {
                return Optional.of(link.resolveSibling(Files.readSymbolicLink(link)).normalize());
            }
            if (Files.isRegularFile(link)) {
                return Optional.of(root.resolve(Files.readString(link).trim()).normalize());
            }
        } catch (IOException e) {
            // fall through: no usable pointer
        }
        return Optional.empty();
    }

    /** All runs, newest first (ties broken by test name). */
    public List<RunEntry> listRuns() {
        List<RunEntry> runs = new ArrayList<>();
        for (Path test : children(root)) {
            String name = test.getFileName().toString();
            if (name.equals(LATEST) || name.equals(CAMPAIGNS) || name.startsWith(".")
                    || Files.isSymbolicLink(test) || !Files.isDirectory(test)) {
                continue;
            }
            for (Path run : children(test)) {
                if (Files.isDirectory(run) && !Files.isSymbolicLink(run)) {
                    runs.add(new RunEntry(name, run.getFileName().toString(), run, verdictOf(run)));
                }
            }
        }
        runs.sort(Comparator.comparing(RunEntry::timestamp).reversed().thenComparing(RunEntry::testName));
        return runs;
    }

    /** All campaigns, newest first. */
    public List<CampaignEntry> listCampaigns() {
        List<CampaignEntry> out = new ArrayList<>();
        for (Path c : children(root.resolve(CAMPAIGNS))) {
            for (Path at : children(c)) {
                if (Files.isDirectory(at) && !Files.isSymbolicLink(at)) {
                    out.add(new CampaignEntry(c.getFileName().toString(), at.getFileName().toString(), at));
                }
            }
        }
        out.sort(Comparator.comparing(CampaignEntry::timestamp).reversed().thenComparing(CampaignEntry::name));
        return out;
    }

    /** The verdict in results.json, lower case; "running" while the run's JVM is alive, else "incomplete". */
    static String verdictOf(Path runDir) {
        Path results = runDir.resolve("results.json");
        if (Files.isRegularFile(results)) {
            try {
                JsonNode v = Json.MAPPER.readTree(results.toFile()).get("verdict");
                if (v != null && v.isTextual()) {
                    return v.asText().toLowerCase(Locale.ROOT);
                }
            } catch (IOException | RuntimeException e) {
                return "incomplete"; // torn or foreign file: do not pretend to know
            }
        }
        Path marker = runDir.resolve(RunDir.RUNNING_MARKER);
        try {
            if (Files.isRegularFile(marker)) {
                long pid = Long.parseLong(Files.readString(marker).trim());
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    return "running";
                }
            }
        } catch (IOException | NumberFormatException e) {
            // treat as not running
        }
        return "incomplete";
    }

    /** Names become single path segments: letters, digits, '.', '_', '-' only; never "latest"/"campaigns"/dots. */
    static String sanitize(String name) {
        String s = name == null ? "" : name.replaceAll("[^A-Za-z0-9._-]", "_");
        if (s.isEmpty() || s.chars().allMatch(c -> c == '.') || s.equals(LATEST) || s.equals(CAMPAIGNS)) {
            s = "test-" + s.replace('.', '_');
        }
        return s;
    }

    /** parent/stamp, or parent/stamp-1, -2... when two runs start in the same millisecond. */
    private static Path createUnique(Path parent, String stamp) throws IOException {
        Files.createDirectories(parent);
        for (int i = 0; ; i++) {
            Path dir = parent.resolve(i == 0 ? stamp : stamp + "-" + i);
            try {
                return Files.createDirectory(dir);
            } catch (FileAlreadyExistsException e) {
                // try the next suffix
            }
        }
    }

    /**
     * Replaces store/latest atomically: a new symlink renamed over the old pointer; a text file holding the relative
     * path where symlinks are not allowed. Best effort.
     */
    private void pointLatestAt(Path runDir) throws IOException {
        Path link = root.resolve(LATEST);
        Path target = root.relativize(runDir);
        Path tmp = root.resolve(".latest-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            Files.createSymbolicLink(tmp, target);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            Files.writeString(tmp, target.toString().replace('\\', '/') + "\n", StandardCharsets.UTF_8);
        }
        try {
            Files.move(tmp, link, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // e.g. a non-empty *directory* named latest: leave it rather than delete someone's files, and do not
            // fail the run over a convenience pointer
            Files.deleteIfExists(tmp);
        }
    }

    private static List<Path> children(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
