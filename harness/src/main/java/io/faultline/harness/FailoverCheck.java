package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Availability through a minority outage. With one node down (crashed, stopped or frozen) and nothing else wrong, a
 * replicated log with a replica to spare (replication factor above min.insync.replicas) must move leadership off the
 * missing node and take writes again on every partition: Kafka fences a broker that misses its session (2 s in these
 * runs) and elects another in-sync replica. The recovery check judges the end of a run; this judges the middle, where a
 * broker that elects a dead replica, keeps a fenced leader or never tells clients who leads now stays unwritable until
 * the node comes back, and so passes every check made after the heal.
 *
 * <p>Windows: from the moment exactly one node is down, no other fault in force (no cut, slowed link or skewed clock),
 * to the next fault op of any kind (its restart, usually). A window longer than {@link #BOUND_NANOS} plus
 * {@link #MIN_JUDGED_NANOS} is judged from {@code BOUND_NANOS} after it opened to its end: every key acknowledged
 * before the outage that was written to at least {@link #MIN_ATTEMPTS} times in that span must have had a write
 * acknowledged in it. Keys created during the outage are not judged (with one broker of three missing Kafka refuses to
 * create a topic of three replicas). Pure: reads the history; never throws.
 */
final class FailoverCheck {
    static final String CHECKER = "failover", UNAVAILABLE = "unwritable-in-outage";
    /**
     * 15 s: the broker session (2 s), an election, the clients' request timeout (5 s) on requests the lost node held
     * and a metadata refresh fit several times; Kafka 4.4 took at most {@code slowest-failover-ms} of its runs (see
     * docs/liveness.md) to write every key again.
     */
    static final long BOUND_NANOS = 15_000_000_000L;
    static final long MIN_JUDGED_NANOS = 5_000_000_000L;
    static final int MIN_ATTEMPTS = 2;
    private static final Pattern NODE = Pattern.compile("\\bn\\d+\\b");

    private FailoverCheck() {}

    /** One node alone down, nothing else in force, from {@code start} to {@code end} (nanoseconds of the history). */
    record Window(String node, String how, long start, long end, long openedBy) {
        long length() {
            return end - start;
        }
    }

    /**
     * @return null when nothing could be judged: no window long enough, or no replica to spare ({@code minIsr} not below
     *         {@code replicationFactor}: one replica down then stops writes by design)
     */
    static CheckResult check(List<Op> history, int replicationFactor, int minIsr) {
        try {
            if (minIsr >= replicationFactor) return null;
            List<Window> windows = windows(history).stream()
                    .filter(w -> w.length() >= BOUND_NANOS + MIN_JUDGED_NANOS).toList();
            if (windows.isEmpty()) return null;
            List<Attempt> attempts = attempts(history);
            List<Example> unavailable = new ArrayList<>();
            long slowest = -1;
            int judgedKeys = 0;
            for (Window w : windows) {
                long from = w.start() + BOUND_NANOS;
                Set<Integer> known = new TreeSet<>();
                for (Attempt a : attempts) if (a.completed() < w.start()) known.addAll(a.acknowledged());
                Map<Integer, Integer> tries = new TreeMap<>();
                Map<Integer, Long> firstAckAfterStart = new HashMap<>();
                Set<Integer> writtenInSpan = new TreeSet<>();
                Map<Integer, List<Long>> failed = new HashMap<>();
                for (Attempt a : attempts) {
                    if (a.invoked() >= from && a.invoked() < w.end()) {
                        for (int k : a.keys()) {
                            tries.merge(k, 1, Integer::sum);
                            if (!a.acknowledged().contains(k) && a.completed() < Long.MAX_VALUE) {
                                failed.computeIfAbsent(k, x -> new ArrayList<>()).add(a.completionIndex());
                            }
                        }
                    }
                    for (int k : a.acknowledged()) {
                        if (a.completed() >= from && a.completed() < w.end()) writtenInSpan.add(k);
                        if (a.invoked() >= w.start() && a.completed() < w.end()) firstAckAfterStart.merge(k, a.completed(), Math::min);
                    }
                }
                for (var e : tries.entrySet()) {
                    int key = e.getKey();
                    if (!known.contains(key) || e.getValue() < MIN_ATTEMPTS) continue;
                    judgedKeys++;
                    Long ack = firstAckAfterStart.get(key);
                    if (ack != null) slowest = Math.max(slowest, (ack - w.start()) / 1_000_000);
                    if (writtenInSpan.contains(key)) continue;
                    List<Long> ops = new ArrayList<>();
                    ops.add(w.openedBy());
                    failed.getOrDefault(key, List.of()).stream().limit(5).forEach(ops::add);
                    unavailable.add(new Example(UNAVAILABLE, key, String.format(java.util.Locale.ROOT,
                            "key %d: %d writes from %.1f s into %s's outage (%s, %.1f s in all) to its end, none"
                                    + " acknowledged: leadership never left the missing node, or the clients were never"
                                    + " told where it went", key, e.getValue(), BOUND_NANOS / 1e9, w.node(), w.how(),
                            w.length() / 1e9), ops));
                }
            }
            Map<String, Object> stats = new LinkedHashMap<>();
            stats.put("outages-judged", windows.size());
            stats.put("keys-judged", judgedKeys);
            stats.put("bound-ms", BOUND_NANOS / 1_000_000);
            if (slowest >= 0) stats.put("slowest-failover-ms", slowest);
            boolean fine = unavailable.isEmpty();
            return new CheckResult(CHECKER, fine ? Verdict.VALID : Verdict.INVALID,
                    fine ? Map.of() : Map.of(UNAVAILABLE, (long) unavailable.size()), Set.of(),
                    fine ? Map.of() : Map.of(UNAVAILABLE, unavailable), stats, null);
        } catch (RuntimeException e) {
            return CheckResult.failure(CHECKER, e);
        }
    }

    /** The windows in which exactly one node was down and no other fault in force, in history order. */
    static List<Window> windows(List<Op> history) {
        List<Window> out = new ArrayList<>();
        Map<String, String> down = new LinkedHashMap<>(); // node → how it went down
        boolean cut = false, links = false, clock = false;
        Window open = null;
        for (Op op : history) {
            if (op.process() != Op.NEMESIS) continue;
            if (open != null) {
                out.add(new Window(open.node(), open.how(), open.start(), op.time(), open.openedBy()));
                open = null;
            }
            String text = op.value() instanceof OpValue.Text t ? t.text() : String.valueOf(op.value());
            List<String> nodes = nodes(text);
            boolean downNow = false;
            switch (op.f()) {
                case "kill", "stop", "pause" -> {
                    String done = switch (op.f()) {
                        case "kill" -> "killed ";
                        case "stop" -> "stopped ";
                        default -> "paused ";
                    };
                    if (text.startsWith(done) && op.error() == null) {
                        for (String n : nodes) down.put(n, op.f());
                        downNow = !nodes.isEmpty();
                    }
                }
                case "start", "resume" -> {
                    if (!text.startsWith("started") && !text.startsWith("resumed")) {
                        if (text.equals("all") || nodes.isEmpty()) down.clear();
                        else nodes.forEach(down::remove);
                    }
                }
                case "start-partition" -> cut = true;
                case "stop-partition" -> cut = !text.startsWith("fully connected");
                case "start-link" -> links = true;
                case "stop-link" -> links = !text.startsWith("all links clean");
                case "bump-clock" -> clock = true;
                case "reset-clock" -> clock = !text.startsWith("offsets") || text.matches(".*=-?[1-9].*");
                default -> { } // a replica move, a torn segment, ...: ends a window, leaves nothing in force we track
            }
            if (downNow && down.size() == 1 && !cut && !links && !clock) {
                var only = down.entrySet().iterator().next();
                open = new Window(only.getKey(), only.getValue(), op.time(), Long.MAX_VALUE, op.index());
            }
        }
        return out; // a window still open at the end of the history (the run stopped mid-outage) is not judged
    }

    private static List<String> nodes(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = NODE.matcher(text);
        while (m.find()) out.add(m.group());
        return out;
    }

    /** A client op that sends: when it was invoked and completed, the keys it sent to and those acknowledged. */
    record Attempt(long invoked, long completed, long completionIndex, Set<Integer> keys, Set<Integer> acknowledged) {
    }

    static List<Attempt> attempts(List<Op> history) {
        Map<Integer, Op> pending = new HashMap<>();
        List<Attempt> out = new ArrayList<>();
        for (Op op : history) {
            if (op.process() == Op.NEMESIS || !(op.value() instanceof OpValue.Txn)) {
                if (op.process() != Op.NEMESIS && op.type() != OpType.INVOKE) pending.remove(op.process());
                continue;
            }
            if (op.type() == OpType.INVOKE) {
                pending.put(op.process(), op);
                continue;
            }
            Op inv = pending.remove(op.process());
            if (inv == null) continue;
            Set<Integer> keys = sentKeys(inv);
            if (keys.isEmpty()) continue;
            Set<Integer> acked = new TreeSet<>();
            if (op.type() == OpType.OK) {
                acked.addAll(keys);
            } else if (op.type() == OpType.INFO) {
                for (MicroOp m : ((OpValue.Txn) op.value()).mops()) {
                    if (m instanceof MicroOp.Send s && s.offset() != null) acked.add(s.key()); // a part that landed
                }
            }
            out.add(new Attempt(inv.time(), op.time(), op.index(), keys, acked));
        }
        for (Op inv : pending.values()) {
            Set<Integer> keys = sentKeys(inv);
            if (!keys.isEmpty()) out.add(new Attempt(inv.time(), Long.MAX_VALUE, inv.index(), keys, Set.of()));
        }
        return out;
    }

    /** The keys an invocation sends to. */
    private static Set<Integer> sentKeys(Op invocation) {
        Set<Integer> keys = new TreeSet<>();
        for (MicroOp m : ((OpValue.Txn) invocation.value()).mops()) if (m instanceof MicroOp.Send s) keys.add(s.key());
        return keys;
    }
}
