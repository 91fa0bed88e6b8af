package io.faultline.nemesis;

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
        Map<String, FaultPackage> byName = new HashMap<>();
        packages.forEach(p -> byName.put(p.name(), p));
        Map<String, Long> open = new HashMap<>();
        List<FaultBand> bands = new ArrayList<>();
        for (FaultEvent e : events()) {
            FaultPackage p = byName.get(e.packageName());
            if (p == null) continue;
            boolean fault = p.faultFs().contains(e.f());
            if (p.healFs().isEmpty()) {
                if (fault && e.phase() == Phase.START) open.put(p.name(), e.timeNanos());
                if (fault && e.phase() == Phase.END && open.containsKey(p.name())) {
                    bands.add(new FaultBand(p.name(), p.colour(), open.remove(p.name()), e.timeNanos()));
                }
            } else if (fault && e.phase() == Phase.START) {
                open.putIfAbsent(p.name(), e.timeNanos());
            } else if (p.isHeal(e.f()) && e.phase() == Phase.END && open.containsKey(p.name())) {
                bands.add(new FaultBand(p.name(), p.colour(), open.remove(p.name()), e.timeNanos()));
            }
        }
        open.forEach((name, start) -> bands.add(new FaultBand(name, byName.get(name).colour(), start, -1)));
        return bands;
    }
}
