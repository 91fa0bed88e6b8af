package io.faultline.harness;

import io.faultline.nemesis.Schedule;
import io.faultline.results.ReportInput;

import java.util.List;
import java.util.Map;

/** The faults of one run as the runner drives them: start the schedule, then heal everything at the end. */
interface FaultSchedule {
    /** Begins injecting faults on a background thread until {@link #stopAndHeal()}. */
    void start();

    /** The faults this schedule plans, with their cycles and times (empty without faults). */
    default List<Schedule.PlannedOp> plan() {
        return List.of();
    }

    /** Fault packages in force right now, for the progress line. */
    List<String> active();

    /**
     * Stops the schedule, then runs every package's final heal in order and (unless {@code quick}, as after
     * Ctrl-C) waits for the cluster to be healthy. Returns what is still wrong; never throws.
     */
    List<String> stopAndHeal(boolean quick);

    /** Per-node clock offsets over time, when clock faults ran. */
    Map<String, List<ReportInput.ClockPoint>> clockOffsets();

    /** How the report names, colours and bounds this schedule's fault packages (written into test.json). */
    default List<io.faultline.nemesis.FaultPackage.Legend> legends() {
        return io.faultline.nemesis.FaultPackages.legends();
    }

    /** A run without faults. */
    FaultSchedule NONE = new FaultSchedule() {
        @Override
        public void start() {}

        @Override
        public List<String> active() {
            return List.of();
        }

        @Override
        public List<String> stopAndHeal(boolean quick) {
            return List.of();
        }

        @Override
        public Map<String, List<ReportInput.ClockPoint>> clockOffsets() {
            return Map.of();
        }
    };
}
