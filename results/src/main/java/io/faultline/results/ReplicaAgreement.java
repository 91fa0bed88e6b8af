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
 * Replicas must agree on what was committed (the log a consumer may read is the same on every replica): a check of
 * the final data directories a run collects, not of the history. Clients read from the leader only, so a follower
 * that kept a divergent tail (KIP-101 scenario 2, KIP-279's fast leader fail-over) is invisible to the history until
 * it leads; here it is seen directly. An unclean election may lose data, but the replicas must still agree
 * afterwards, so this holds under every setting.
 *
 * <p>For each workload partition and each pair of replicas it compares the values at every offset from the higher of
 * their log start offsets ({@code log-start-offset-checkpoint}) up to a bound
 * taken from the replicas' checkpointed high watermarks ({@code replication-offset-checkpoint}, written every few
 * seconds, so it errs low). Where the run's recovery check saw the partition's whole replica set back in the ISR
 * after the final heal, the bound is the <em>higher</em> of the two: an offset below either high watermark was
 * committed, and a replica in the ISR holds every committed offset, so a different value there, or a gap inside a
 * replica's log, is a divergence. That matters because a follower's checkpoint can lag far behind (or, in a broken
 * broker, never move), and the lower bound would then compare almost nothing. Elsewhere (a replica that may still
 * be catching up, or no recovery check) the bound is the lower of the two, where a stale tail cannot be mistaken for
 * a divergence.
 */
public final class ReplicaAgreement {
    public static final String CHECKER = "replica-agreement", DIVERGENCE = "replica-divergence";
    static final String HW_FILE = "replication-offset-checkpoint", LOG_START_FILE = "log-start-offset-checkpoint";
    private static final int MAX_EXAMPLES = 8;

    private ReplicaAgreement() {}

    /**
     * The check's result, or null when nothing could be compared (no collected data, a single replica, or a log
     * format this reader does not know: message format v2 only, i.e. Kafka 0.11 and later).
     */
    public static CheckResult check(Path nodesDir) {
        return check(nodesDir, Set.of());
    }

    /**
     * As {@link #check(Path)}, with the workload partitions (directory names, topic-partition) whose whole replica
     * set the recovery check last saw in the ISR: those are compared up to the higher high watermark of each pair.
     */
    public static CheckResult check(Path nodesDir, Set<String> recoveredPartitions) {
        try {
            return compare(nodesDir, recoveredPartitions == null ? Set.of() : recoveredPartitions);
        } catch (RuntimeException e) {
            return CheckResult.failure(CHECKER, e);
        }
    }

    private static CheckResult compare(Path nodesDir, Set<String> recovered) {
        Map<String, Map<String, Long>> hwByNode = highWatermarks(nodesDir);
        Map<String, Map<String, Long>> startByNode = checkpoints(nodesDir, LOG_START_FILE);
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
            Map<String, long[]> span = new HashMap<>(); // node → first and last offset its log holds
            ReplicaLogs.read(nodesDir, partition).forEach((node, entries) -> {
                Map<Long, ReplicaLogs.Entry> byOffset = new HashMap<>();
                for (ReplicaLogs.Entry x : entries) byOffset.put(x.offset(), x);
                logs.put(node, byOffset);
                if (!entries.isEmpty()) span.put(node, new long[] {entries.get(0).offset(), entries.get(entries.size() - 1).offset()});
            });
            boolean inIsr = recovered.contains(partition);
            List<String> nodes = new ArrayList<>(logs.keySet());
            // offsets already counted for this partition: one divergent offset counts once however many pairs differ
            Set<Long> seen = new java.util.HashSet<>();
            for (int i = 0; i < nodes.size(); i++) {
                for (int j = i + 1; j < nodes.size(); j++) {
                    String a = nodes.get(i), b = nodes.get(j);
                    Long hwA = hwByNode.getOrDefault(a, Map.of()).get(partition), hwB = hwByNode.getOrDefault(b, Map.of()).get(partition);
                    if (hwA == null || hwB == null) continue;
                    long below = inIsr ? Math.max(hwA, hwB) : Math.min(hwA, hwB);
                    // below a replica's log start (DeleteRecords, retention) nothing is served any more: segments there
                    // may still hold records until they are deleted whole, and those were never re-fetched
                    long from = Math.max(startByNode.getOrDefault(a, Map.of()).getOrDefault(partition, 0L),
                            startByNode.getOrDefault(b, Map.of()).getOrDefault(partition, 0L));
                    for (String[] pair : new String[][] {{a, b}, {b, a}}) {
                        String x = pair[0], y = pair[1];
                        long[] ySpan = span.get(y);
                        for (var entry : logs.get(x).entrySet()) {
                            long offset = entry.getKey();
                            if (offset >= below || offset < from) continue;
                            ReplicaLogs.Entry mine = entry.getValue(), theirs = logs.get(y).get(offset);
                            // a gap counts only where the other log goes on past it (its tail may be cut short)
                            boolean gap = theirs == null && inIsr && ySpan != null && ySpan[0] <= offset && offset < ySpan[1];
                            if (theirs == null && !gap) continue;
                            if (theirs != null && x.equals(b)) continue; // a pair both hold is compared once, from a
                            if (theirs != null && (mine.value() == null || theirs.value() == null)) continue;
                            compared++;
                            if ((theirs != null && mine.value().equals(theirs.value())) || !seen.add(offset)) continue;
                            divergent++;
                            if (examples.size() < MAX_EXAMPLES) {
                                String what = theirs == null
                                        ? String.format("%s offset %d: %s has %s (leader epoch %d), %s has nothing there though its log"
                                                + " goes on to offset %d", partition, offset, x, mine.value(), mine.leaderEpoch(), y, ySpan[1])
                                        : String.format("%s offset %d: %s has %s (leader epoch %d), %s has %s (leader epoch %d)",
                                                partition, offset, x, mine.value(), mine.leaderEpoch(), y, theirs.value(), theirs.leaderEpoch());
                                examples.add(new Example(DIVERGENCE, null, String.format("%s; %s (%s %d, %s %d)", what,
                                        inIsr ? "committed: below the higher high watermark, and both replicas were back in the ISR"
                                                : "both below their high watermarks", a, hwA, b, hwB), List.of()));
                            }
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

    /** Node → the end of its log of {@code partition} (topic-partition), from the collected segment files. */
    public static Map<String, Long> logEnds(Path nodesDir, String partition) {
        return ReplicaLogs.logEnds(nodesDir, partition);
    }

    /** Node → partition directory name (topic-partition) → its checkpointed high watermark. */
    public static Map<String, Map<String, Long>> highWatermarks(Path nodesDir) {
        return checkpoints(nodesDir, HW_FILE);
    }

    /** Node → partition (topic-partition) → the offset a checkpoint file of both systems' format gives it. */
    static Map<String, Map<String, Long>> checkpoints(Path nodesDir, String fileName) {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        if (nodesDir == null || !Files.isDirectory(nodesDir)) return out;
        for (Path node : LogExcerpts.list(nodesDir)) {
            Path file = findFile(node.resolve("data"), fileName, 3);
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

    private static Path findFile(Path dir, String fileName, int depth) {
        if (!Files.isDirectory(dir) || depth < 0) return null;
        Path direct = dir.resolve(fileName);
        if (Files.isRegularFile(direct)) return direct;
        for (Path child : LogExcerpts.list(dir)) {
            Path hit = findFile(child, fileName, depth - 1);
            if (hit != null) return hit;
        }
        return null;
    }
}
