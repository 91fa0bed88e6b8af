package io.faultline.harness;

import io.faultline.results.ReportInput;

import java.util.List;
import java.util.Map;

/** The faults of one run as the runner drives them: start the schedule, then heal everything at the end. */
interface FaultSchedule {
    /** Begins injecting faults on a background thread until {@link #stopAndHeal()}. */
    void start();

    /** Fault packages in force right now, for the progress line. */
    List<String> active();

    /** Stops the schedule, then runs every package's final heal in order. Never throws. */
    void stopAndHeal();

    /** Per-node clock offsets over time, when clock faults ran. */
    Map<String, List<ReportInput.ClockPoint>> clockOffsets();

    /** A run without faults. */
    FaultSchedule NONE = new FaultSchedule() {
        @Override
        public void start() {}

        @Override
        public List<String> active() {
            return List.of();
        }

        @Override
        public void stopAndHeal() {}

        @Override
        public Map<String, List<ReportInput.ClockPoint>> clockOffsets() {
            return Map.of();
        }
    };
}
