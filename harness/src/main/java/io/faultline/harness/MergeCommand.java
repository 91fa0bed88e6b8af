package io.faultline.harness;

import io.faultline.results.BugsPage;
import io.faultline.results.CampaignInput;
import io.faultline.results.CampaignPage;
import io.faultline.results.JunitXml;
import io.faultline.results.RunStore;
import io.faultline.results.TrendPage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * `faultline merge`: the shards of one campaign (`campaign --shard I/N`, run anywhere) joined into the page, campaign.json,
 * trend and JUnit XML an unsharded campaign writes. The shards' run folders are copied into --store, so the result
 * is one self-contained store that can be published as it is.
 */
@Command(name = "merge", mixinStandardHelpOptions = true,
        description = {"Join the shards of one campaign (campaign --shard I/N) into its campaign page, campaign.json,"
                + " trend page and (with --junit-xml) JUnit XML, as an unsharded campaign writes them; and the shards"
                + " of a seeded-bug hunt (bugs --shard I/N) into one score page.",
                "Each DIR is a store folder, a campaign folder in one, or a .tar.gz / .tgz archive of either. Every shard"
                        + " must be of the same campaign (same identity: name, matrix and --seed), else nothing is written.",
                "A point of the matrix that no shard ran is shown as missing on the page, in campaign.json and in the"
                        + " JUnit XML (an error case), and makes the exit code non-zero (2, or 1 when a run present is"
                        + " invalid) unless --allow-missing. Otherwise the exit code is the campaign's: 0 all valid,"
                        + " 1 some run invalid, 2 some run unknown or broken. A missing seeded bug counts as not detected."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every point ran and was valid (bugs: every bug detected, no false alarm)",
                "1:some run was invalid (bugs: a bug not detected, or a false alarm)",
                "2:some point missing (see --allow-missing), a run unknown or broken, or bad input"})
final class MergeCommand implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", arity = "1..*", description = "Shard stores or archives (.tar.gz) of them")
    List<Path> inputs;

    @Option(names = "--store", description = "Store to write the merged campaign into; the shards' runs are copied"
            + " there (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Option(names = "--junit-xml", paramLabel = "FILE", description = "Also write the merged results as JUnit XML (one testcase per point)")
    Path junitXml;

    @Option(names = "--identity", paramLabel = "ID", description = "Only shards of the campaign with this identity"
            + " (printed by each shard; for stores that hold several campaigns' shards)")
    String identity;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--allow-missing", description = "Exit by the verdicts alone when points are missing (they are still shown as missing)")
    boolean allowMissing;

    @Override
    public Integer call() throws Exception {
        List<Path> unpacked = new ArrayList<>();
        try {
            List<CampaignShards.Record> shards = new ArrayList<>();
            List<BugsShards.Record> hunts = new ArrayList<>();
            for (Path in : inputs) shardsIn(in, unpacked, shards, hunts);
            if (shards.isEmpty() && hunts.isEmpty()) {
                throw new IllegalArgumentException("merge: no campaign or bugs shard in " + inputs
                        + (identity != null ? " with identity " + identity : ""));
            }
            int exit = FaultlineCli.EXIT_VALID;
            // check every identity before writing anything
            CampaignMerge.Result merged = shards.isEmpty() ? null : CampaignMerge.merge(shards);
            List<String> duplicates = new ArrayList<>();
            BugsPage.Input score = hunts.isEmpty() ? null : BugsShards.merge(hunts, duplicates);
            if (merged != null) exit = write(merged);
            if (score != null) exit = CampaignCommand.worse(exit, writeBugs(score, hunts, duplicates));
            return exit;
        } finally {
            unpacked.forEach(MergeCommand::deleteQuietly);
        }
    }

    /** The shards in one input; an archive is unpacked into a temporary folder first (removed at the end). */
    private void shardsIn(Path in, List<Path> unpacked, List<CampaignShards.Record> campaigns, List<BugsShards.Record> hunts)
            throws IOException, InterruptedException {
        if (!Files.exists(in)) throw new NoSuchFileException(in.toString());
        Path dir = in;
        String file = in.getFileName() == null ? "" : in.getFileName().toString();
        if (Files.isRegularFile(in)) {
            if (!file.endsWith(".tar.gz") && !file.endsWith(".tgz")) {
                throw new IllegalArgumentException("merge: " + in + " is neither a folder nor a .tar.gz / .tgz archive");
            }
            dir = Files.createTempDirectory("faultline-merge-");
            unpacked.add(dir);
            untar(in, dir);
        }
        int found = 0;
        for (Path c : CampaignShards.campaignDirs(dir)) {
            CampaignShards.Record r;
            try {
                r = CampaignShards.read(c);
            } catch (IllegalArgumentException notSharded) {
                continue; // a campaign from before sharding, or another file called campaign.json
            }
            if (r.merged()) continue; // an earlier merge's output, not a shard
            if (identity != null && !identity.equals(r.identity())) continue;
            campaigns.add(r);
            found++;
        }
        for (Path b : BugsShards.bugsDirs(dir)) {
            BugsShards.Record r = BugsShards.read(b);
            if (r == null || r.merged() || (identity != null && !identity.equals(r.identity()))) continue;
            hunts.add(r);
            found++;
        }
        if (found == 0) {
            throw new IllegalArgumentException("merge: no campaign or bugs shard in " + in
                    + (identity != null ? " with identity " + identity : "")
                    + " (expected a store with campaigns/NAME/TIME/campaign.json or bugs/TIME/bugs.json)");
        }
    }

    /** The merged seeded-bug score: STORE/bugs/TIME/bugs.html, the runs copied next to it; exit as `bugs` does. */
    private int writeBugs(BugsPage.Input score, List<BugsShards.Record> hunts, List<String> duplicates) throws IOException {
        java.io.PrintWriter err = spec.commandLine().getErr();
        var runStore = new RunStore(store);
        List<BugsPage.Bug> bugs = new ArrayList<>();
        for (BugsPage.Bug b : score.bugs()) bugs.add(new BugsPage.Bug(b.name(), b.mistake(), b.mix(), placeAll(b.attempts(), runStore.root())));
        List<BugsPage.Clean> clean = new ArrayList<>();
        for (BugsPage.Clean c : score.clean()) clean.add(new BugsPage.Clean(c.mix(), placeAll(c.attempts(), runStore.root())));
        BugsShards.Record first = hunts.get(0);
        Map<String, Object> section = new LinkedHashMap<>(castSection(BugsShards.section(first.identity(), first.seed(),
                Shard.WHOLE, first.points(), score), BugsShards.SECTION));
        section.put("merged", hunts.stream().map(h -> Map.of("shard", h.shard().toString(), "source", h.dir().toString())).toList());
        section.put("duplicates", duplicates);
        var input = new BugsPage.Input(score.title(), score.startedAt(), score.seed(), bugs, clean, score.missing(),
                Map.of(BugsShards.SECTION, section));
        Path dir = runStore.root().resolve("bugs").resolve(CompareCommand.RunStoreTime.stamp(java.time.Instant.now()) + "-merged");
        Path page = BugsPage.write(input, dir);
        err.println("faultline: merged " + hunts.size() + " bugs shards " + hunts.stream().map(h -> h.shard().toString()).toList()
                + " (identity " + first.identity() + ", seed " + first.seed() + "): " + input.detected() + " of "
                + input.bugs().size() + " seeded bugs detected; " + input.falseAlarms() + " false alarms");
        duplicates.forEach(d -> err.println("faultline: merge: duplicate " + d));
        err.println("faultline: bugs page " + page);
        int exit = input.detected() == input.bugs().size() && input.falseAlarms() == 0 ? FaultlineCli.EXIT_VALID : FaultlineCli.EXIT_INVALID;
        if (!input.missing().isEmpty()) {
            err.println("faultline: merge: " + input.missing().size() + " of " + first.points().size()
                    + " bugs points missing (" + String.join(", ", input.missing()) + "); the page marks them missing");
            if (!allowMissing) exit = CampaignCommand.worse(exit, FaultlineCli.EXIT_UNKNOWN_OR_ERROR);
        }
        return exit;
    }

    private static List<BugsPage.Attempt> placeAll(List<BugsPage.Attempt> attempts, Path root) throws IOException {
        List<BugsPage.Attempt> out = new ArrayList<>();
        for (BugsPage.Attempt a : attempts) {
            Path placed = a.runDir() == null ? null : placeRun(Path.of(a.runDir()), root);
            out.add(new BugsPage.Attempt(a.seed(), a.verdict(), a.anomalies(), placed == null ? null : placed.toString(), a.seconds()));
        }
        return out;
    }

    private static void untar(Path archive, Path into) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("tar", "-xzf", archive.toAbsolutePath().toString(), "-C", into.toString())
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw new IllegalArgumentException("merge: cannot unpack " + archive + ": "
                    + output.lines().findFirst().orElse("tar exit " + p.exitValue()));
        }
    }

    private int write(CampaignMerge.Result m) throws IOException {
        java.io.PrintWriter err = spec.commandLine().getErr();
        var runStore = new RunStore(store);
        // The runs move next to the page, so its links hold wherever the store is published.
        Map<Integer, CampaignShards.Done> placed = new LinkedHashMap<>();
        for (var e : m.points().entrySet()) placed.put(e.getKey(), place(e.getValue(), runStore.root()));
        var result = new CampaignMerge.Result(m.name(), m.identity(), m.seed(), m.createdAt(), m.matrix(), placed,
                m.missing(), m.duplicates(), m.shards());

        Map<Integer, JunitXml.Case> done = new LinkedHashMap<>();
        placed.forEach((k, d) -> done.put(k, d.junit()));
        Map<String, Object> section = new LinkedHashMap<>(castSection(CampaignShards.section(m.identity(), m.seed(),
                Shard.WHOLE, m.matrix(), done), CampaignShards.SECTION));
        List<Map<String, Object>> from = new ArrayList<>();
        for (CampaignShards.Record r : m.shards()) {
            from.add(Map.of("shard", r.shard().toString(), "createdAt", r.createdAt().toString(),
                    "source", r.campaignDir().toString(), "points", r.done().keySet()));
        }
        section.put("merged", from);
        section.put("missing", List.copyOf(m.missing().keySet()));
        section.put("duplicates", m.duplicates());

        Path dir = runStore.newCampaign(m.name(), m.createdAt());
        CampaignInput input = new CampaignInput(m.name(), m.createdAt(), result.rows())
                .withDetails(Map.of(CampaignShards.SECTION, section));
        CampaignPage.write(input, dir);
        if (junitXml != null) JunitCases.write(junitXml, "faultline campaign " + m.name(), result.junitCases());

        err.println("faultline: merged " + m.shards().size() + " shards " + result.shardNames() + " of campaign "
                + m.name() + " (identity " + m.identity() + ", seed " + m.seed() + "): " + m.points().size() + " of "
                + m.matrix().size() + " points");
        m.duplicates().forEach(d -> err.println("faultline: merge: duplicate " + d));
        err.println("faultline: campaign page " + dir.resolve("index.html"));
        try {
            err.println("faultline: trend page " + TrendPage.write(dir.getParent()));
        } catch (Exception e) {
            err.println("faultline: could not write the trend page: " + e);
        }
        int worst = FaultlineCli.EXIT_VALID;
        for (CampaignShards.Done d : placed.values()) {
            JunitXml.Case c = d.junit();
            worst = CampaignCommand.worse(worst, switch (c.verdict()) {
                case "valid" -> FaultlineCli.EXIT_VALID;
                case "invalid" -> FaultlineCli.EXIT_INVALID;
                default -> FaultlineCli.EXIT_UNKNOWN_OR_ERROR;
            });
        }
        if (!m.missing().isEmpty()) {
            // one line: how much is missing and from which shards; the page and JUnit XML list each point
            err.println("faultline: merge: " + m.missing().size() + " of " + m.matrix().size()
                    + " points missing, from shard(s) " + m.missing().values().stream().map(Shard::toString).distinct().toList()
                    + " (given: " + result.shardNames() + "); the page marks them missing");
            if (!allowMissing) worst = CampaignCommand.worse(worst, FaultlineCli.EXIT_UNKNOWN_OR_ERROR);
        }
        return worst;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castSection(Map<String, Object> wrapped, String key) {
        return (Map<String, Object>) wrapped.get(key);
    }

    /** A point whose run folder lies outside {@code root} gets a copy in it (root/TEST/TIME, suffixed if taken). */
    private static CampaignShards.Done place(CampaignShards.Done d, Path root) throws IOException {
        if (d.run() == null || d.run().runDir() == null) return d;
        Path target = placeRun(d.run().runDir(), root);
        var r = d.run();
        var run = new CampaignInput.Run(r.config(), target, r.verdict(), r.anomalyCounts(), r.availability(),
                r.availabilityDuringFaults(), r.okOpsPerSecond(), r.point());
        var j = d.junit();
        var junit = new JunitXml.Case(j.name(), j.classname(), j.seconds(), j.verdict(), j.anomalies(), j.caveats(),
                target.resolve("report.html").toString());
        return new CampaignShards.Done(junit, run);
    }

    /** The run folder in {@code root}: itself when already there, else a copy at root/TEST/TIME (suffixed if taken). */
    private static Path placeRun(Path runDir, Path root) throws IOException {
        Path src = runDir.toAbsolutePath().normalize();
        if (src.startsWith(root)) return src;
        if (!Files.isDirectory(src)) {
            throw new IllegalArgumentException("merge: the run folder " + src + " named by its shard is missing (copy the"
                    + " whole store folder, not only its pages)");
        }
        Path testDir = root.resolve(src.getParent().getFileName().toString());
        Files.createDirectories(testDir);
        Path target;
        for (int i = 0; ; i++) {
            target = testDir.resolve(i == 0 ? src.getFileName().toString() : src.getFileName() + "-" + i);
            try {
                Files.createDirectory(target);
                break;
            } catch (FileAlreadyExistsException taken) {
                // a run of the same test started in the same millisecond on another machine
            }
        }
        copyTree(src, target);
        return target;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path dest = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) Files.createDirectories(dest);
                else Files.copy(f, dest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES,
                        java.nio.file.LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a temporary copy of an archive: not worth failing the merge for
        }
    }
}
