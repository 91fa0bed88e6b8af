package io.faultline.nemesis;

import io.faultline.checker.history.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory {@link FaultLog} that also turns the events into fault bands (package, from, to, colour) for plots:
 * a band opens at the first fault op of a package and closes at the end of its next heal op; packages whose faults
 * are instantaneous (no heal fs) get one band per op.
 */
public final class FaultTimeline implements FaultLog {
    private final List<FaultEvent> events = new ArrayList<>();

    /** A span of time during which a package's fault was in force. {@code endNanos} is -1 if never healed. */
    public record FaultBand(String packageName, String colour, long startNanos, long endNanos) {}

    @Override
    public synchronized void record(FaultEvent event) {
        events.add(event);
    }

    public synchronized List<FaultEvent> events() {
        return List.copyOf(events);
    }

    public List<FaultBand> bands(List<FaultPackage> packages) {
        return bands(events(), packages.stream().map(FaultPackage::legend).toList());
    }

    /**
     * Bands from a recorded history, for reports that only have the history file: the nemesis ops of a run come
     * in pairs (start, end) because they run one at a time; each op is attributed to every package whose legend
     * names its f (the shared {@code start} closes the kill, stop and restart bands alike, as it starts every node).
     */
    public static List<FaultBand> fromHistory(List<Op> history, List<FaultPackage.Legend> legends) {
        List<FaultEvent> events = new ArrayList<>();
        Map<String, Boolean> open = new HashMap<>();
        for (Op op : history) {
            if (op.process() != Op.NEMESIS) continue;
            boolean starting = !open.getOrDefault(op.f(), false);
            open.put(op.f(), starting);
            for (FaultPackage.Legend l : legends) {
                if (l.faultFs().contains(op.f()) || l.healFs().contains(op.f())) {
                    events.add(new FaultEvent(starting ? Phase.START : Phase.END, l.name(), op.f(), "", op.time(), op.error()));
                }
            }
        }
        return bands(events, legends);
    }

    private static List<FaultBand> bands(List<FaultEvent> events, List<FaultPackage.Legend> legends) {
        Map<String, FaultPackage.Legend> byName = new HashMap<>();
        legends.forEach(p -> byName.put(p.name(), p));
        Map<String, Long> open = new HashMap<>();
        List<FaultBand> bands = new ArrayList<>();
        for (FaultEvent e : events) {
            FaultPackage.Legend p = byName.get(e.packageName());
            if (p == null) continue;
            boolean fault = p.faultFs().contains(e.f());
            if (p.healFs().isEmpty()) {
                if (fault && e.phase() == Phase.START) open.put(p.name(), e.timeNanos());
                if (fault && e.phase() == Phase.END && open.containsKey(p.name())) {
                    bands.add(new FaultBand(p.name(), p.colour(), open.remove(p.name()), e.timeNanos()));
                }
            } else if (fault && e.phase() == Phase.START) {
                open.putIfAbsent(p.name(), e.timeNanos());
            } else if (p.healFs().contains(e.f()) && e.phase() == Phase.END && open.containsKey(p.name())) {
                bands.add(new FaultBand(p.name(), p.colour(), open.remove(p.name()), e.timeNanos()));
            }
        }
        open.forEach((name, start) -> bands.add(new FaultBand(name, byName.get(name).colour(), start, -1)));
        return bands;
    }
}
