package io.faultline.results;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads fault periods out of a history by the run's {@link FaultVocabulary}: a nemesis op (process
 * {@link Op#NEMESIS}) whose f opens a package's band (e.g. "start-partition", "kill") opens it, one that closes it
 * (e.g. "stop-partition", "start") closes it; a band never closed lasts to the end of the history. Any other
 * nemesis op (restart, disk corruption) is a point event.
 * <p>
 * A nemesis may log a start twice (invoke then info/ok completion); only the first start opens the band, and the
 * first stop closes it, moved to that stop's completion (the next nemesis entry, when it is the same stop), so
 * invoke/complete pairs do not produce zero-length bands while a later heal (the final one, after a healthy
 * window) does not stretch the band over the healthy time.
 */
public final class FaultBands {

    /** A fault period in nanoseconds since test start; {@code closed} is false when no stop was seen. */
    public record Band(String pkg, long startNanos, long endNanos, boolean closed) {
        public boolean contains(long timeNanos) {
            return timeNanos >= startNanos && timeNanos <= endNanos;
        }
    }

    /** A nemesis op that is neither a start nor a stop (e.g. "rebalance", "kill-one"). */
    public record PointEvent(String f, long timeNanos, long index) {
    }

    private final List<Band> bands;
    private final List<PointEvent> events;

    private FaultBands(List<Band> bands, List<PointEvent> events) {
        this.bands = List.copyOf(bands);
        this.events = List.copyOf(events);
    }

    /** Bands by the fallback vocabulary (runs that did not record theirs). */
    public static FaultBands of(List<Op> history) {
        return of(history, FaultVocabulary.FALLBACK);
    }

    /** Bands by the run's own vocabulary: which op functions open and close which package's band. */
    public static FaultBands of(List<Op> history, FaultVocabulary vocabulary) {
        long end = history.isEmpty() ? 0 : history.stream().mapToLong(Op::time).max().orElse(0);
        Map<String, Long> open = new LinkedHashMap<>();
        // the stop seen for an open band; a later stop of the same band (its completion) moves the end
        Map<String, Long> closing = new LinkedHashMap<>();
        List<Band> bands = new ArrayList<>();
        List<PointEvent> events = new ArrayList<>();
        String previousF = null;
        int runPosition = 0; // place in a run of nemesis entries with the same f: ops come as (start, end) pairs
        for (Op op : history) {
            if (op.process() != Op.NEMESIS) {
                continue;
            }
            String f = op.f();
            runPosition = f.equals(previousF) ? runPosition + 1 : 0;
            boolean completionOfPrevious = runPosition % 2 == 1;
            previousF = f;
            String opens = vocabulary.opens(f);
            List<String> closes = vocabulary.closes(f);
            if (opens != null) {
                String pkg = opens;
                Long stoppedAt = closing.remove(pkg);
                if (stoppedAt != null) {
                    bands.add(new Band(pkg, open.remove(pkg), stoppedAt, true));
                }
                open.putIfAbsent(pkg, op.time());
            } else if (!closes.isEmpty()) {
                for (String pkg : closes) {
                    if (closing.containsKey(pkg) && !completionOfPrevious) {
                        // a later heal (e.g. the final one after a healthy window): the band ended at the first
                        bands.add(new Band(pkg, open.remove(pkg), closing.remove(pkg), true));
                    } else if (open.containsKey(pkg)) {
                        closing.put(pkg, op.time());
                    }
                }
            } else if (op.type() != OpType.INVOKE) {
                // one point per completed nemesis op, so an invoke/info pair is not drawn twice
                events.add(new PointEvent(f, op.time(), op.index()));
            }
        }
        for (Map.Entry<String, Long> e : open.entrySet()) {
            Long stoppedAt = closing.get(e.getKey());
            bands.add(stoppedAt != null
                    ? new Band(e.getKey(), e.getValue(), stoppedAt, true)
                    : new Band(e.getKey(), e.getValue(), Math.max(end, e.getValue()), false));
        }
        bands.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
        return new FaultBands(bands, events);
    }

    public List<Band> bands() {
        return bands;
    }

    public List<PointEvent> events() {
        return events;
    }

    /** Packages in order of first appearance. */
    public Set<String> packages() {
        Set<String> out = new LinkedHashSet<>();
        bands.forEach(b -> out.add(b.pkg()));
        return out;
    }

    public boolean isEmpty() {
        return bands.isEmpty();
    }

    public boolean anyActiveAt(long timeNanos) {
        for (Band b : bands) {
            if (b.contains(timeNanos)) {
                return true;
            }
        }
        return false;
    }

    public boolean ran(String pkg) {
        return bands.stream().anyMatch(b -> b.pkg().equals(pkg));
    }
}
