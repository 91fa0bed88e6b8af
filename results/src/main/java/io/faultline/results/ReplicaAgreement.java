package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Replicas must agree below their high watermarks (the log a consumer may read is the same on every replica): a
 * check of the final data directories a run collects, not of the history. Clients read from the leader only, so a
 * follower that kept a divergent tail (KIP-101 scenario 2, KIP-279's fast leader fail-over) is invisible to the
 * history until it leads; here it is seen directly. For each workload partition and each pair of replicas it
 * compares the values at every offset below both replicas' checkpointed high watermarks
 * ({@code replication-offset-checkpoint}, written every few seconds, so it errs low). An unclean election may lose
 * data, but the replicas must still agree afterwards, so this holds under every setting.
 */
public final class ReplicaAgreement {
    public static final String CHECKER = "replica-agreement", DIVERGENCE = "replica-divergence";
    static final String HW_FILE = "replication-offset-checkpoint";
    private static final int MAX_EXAMPLES = 8;

    private ReplicaAgreement() {}

    /**
     * The check's result, or null when nothing could be compared (no collected data, a single replica, or a log
     * format this reader does not know: message format v2 only, i.e. Kafka 0.11 and later).
     */
    public static CheckResult check(Path nodesDir) {
        try {
            return compare(nodesDir);
        } catch (RuntimeException e) {
            return CheckResult.failure(CHECKER, e);
        }
    }

    private static CheckResult compare(Path nodesDir) {
        Map<String, Map<String, Long>> hwByNode = highWatermarks(nodesDir);
        Map<String, List<String>> nodesByPartition = new TreeMap<>();
        hwByNode.forEach((node, hws) -> hws.keySet().forEach(p -> {
            if (!p.startsWith("__")) nodesByPartition.computeIfAbsent(p, k -> new ArrayList<>()).add(node);
        }));
        long compared = 0, divergent = 0;
        List<Example> examples = new ArrayList<>();
        for (var e : nodesByPartition.entrySet()) {
            if (e.getValue().size() < 2) continue;
            String partition = e.getKey();
            Map<String, Map<Long, ReplicaLogs.Entry>> logs = new TreeMap<>();
            ReplicaLogs.read(nodesDir, partition).forEach((node, entries) -> {
                Map<Long, ReplicaLogs.Entry> byOffset = new HashMap<>();
                for (ReplicaLogs.Entry x : entries) if (x.value() != null) byOffset.put(x.offset(), x);
                logs.put(node, byOffset);
            });
            List<String> nodes = new ArrayList<>(logs.keySet());
            // offsets already counted for this partition: one divergent offset counts once however many pairs differ
            Set<Long> seen = new java.util.HashSet<>();
            for (int i = 0; i < nodes.size(); i++) {
                for (int j = i + 1; j < nodes.size(); j++) {
                    String a = nodes.get(i), b = nodes.get(j);
                    Long hwA = hwByNode.getOrDefault(a, Map.of()).get(partition), hwB = hwByNode.getOrDefault(b, Map.of()).get(partition);
                    if (hwA == null || hwB == null) continue;
                    long below = Math.min(hwA, hwB);
                    for (var x : logs.get(a).entrySet()) {
                        long offset = x.getKey();
                        if (offset >= below) continue;
                        ReplicaLogs.Entry y = logs.get(b).get(offset);
                        if (y == null) continue;
                        compared++;
                        if (x.getValue().value().equals(y.value()) || !seen.add(offset)) continue;
                        divergent++;
                        if (examples.size() < MAX_EXAMPLES) {
                            examples.add(new Example(DIVERGENCE, null, String.format(
                                    "%s offset %d: %s has %s (leader epoch %d), %s has %s (leader epoch %d); both below "
                                            + "their high watermarks (%s %d, %s %d)", partition, offset, a,
                                    x.getValue().value(), x.getValue().leaderEpoch(), b, y.value(), y.leaderEpoch(),
                                    a, hwA, b, hwB), List.of()));
                        }
                    }
                }
            }
        }
        if (compared == 0) return null;
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("offsets-compared", compared);
        stats.put("partitions", nodesByPartition.size());
        return new CheckResult(CHECKER, divergent > 0 ? Verdict.INVALID : Verdict.VALID, Map.of(DIVERGENCE, divergent),
                Set.of(), divergent > 0 ? Map.of(DIVERGENCE, examples) : Map.of(), stats, null);
    }

    /** Node → partition directory name (topic-partition) → its checkpointed high watermark. */
    static Map<String, Map<String, Long>> highWatermarks(Path nodesDir) {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        if (nodesDir == null || !Files.isDirectory(nodesDir)) return out;
        for (Path node : LogExcerpts.list(nodesDir)) {
            Path file = findFile(node.resolve("data"), 3);
            if (file == null) continue;
            Map<String, Long> hws = new TreeMap<>();
            try {
                List<String> lines = Files.readAllLines(file);
                for (int i = 2; i < lines.size(); i++) {
                    String[] f = lines.get(i).trim().split("\\s+");
                    if (f.length == 3) hws.put(f[0] + "-" + f[1], Long.parseLong(f[2]));
                }
            } catch (IOException | RuntimeException e) {
                continue; // unreadable: this node is not compared
            }
            out.put(node.getFileName().toString(), hws);
        }
        return out;
    }

    private static Path findFile(Path dir, int depth) {
        if (!Files.isDirectory(dir) || depth < 0) return null;
        Path direct = dir.resolve(HW_FILE);
        if (Files.isRegularFile(direct)) return direct;
        for (Path child : LogExcerpts.list(dir)) {
            Path hit = findFile(child, depth - 1);
            if (hit != null) return hit;
        }
        return null;
    }
}
