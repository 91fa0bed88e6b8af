package io.faultline.results;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.faultline.results.SyntheticRun.MS;
import static io.faultline.results.SyntheticRun.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistoryMetricsTest {

    private static final OpValue NONE = OpValue.None.INSTANCE;

    @Test
    void pairsInvokesWithCompletionsPerProcessAndSplitsAvailabilityByFault() {
        SyntheticRun r = new SyntheticRun();
        r.add(OpType.INVOKE, 0, 0, "send", NONE, null);
        r.add(OpType.INVOKE, 1, 1 * MS, "poll", NONE, null);
        r.add(OpType.OK, 1, 4 * MS, "poll", NONE, null);        // 3 ms, outside faults
        r.add(OpType.OK, 0, 10 * MS, "send", NONE, null);       // 10 ms, outside faults
        r.add(OpType.INFO, Op.NEMESIS, 1 * S, "start-kill", NONE, null);
        r.add(OpType.INVOKE, 0, 2 * S, "send", NONE, null);
        r.add(OpType.FAIL, 0, 2 * S + 50 * MS, "send", NONE, "down"); // during the kill
        r.add(OpType.INVOKE, 1, 3 * S, "poll", NONE, null);
        r.add(OpType.OK, 1, 3 * S + 20 * MS, "poll", NONE, null);     // during the kill
        r.add(OpType.INFO, Op.NEMESIS, 4 * S, "stop-kill", NONE, null);
        r.add(OpType.INVOKE, 2, 5 * S, "send", NONE, null);           // never completes

        HistoryMetrics m = HistoryMetrics.of(r.ops(), FaultBands.of(r.ops()));
        assertEquals(List.of(3 * MS, 10 * MS, 50 * MS, 20 * MS),
                m.completions().stream().map(HistoryMetrics.Completion::latencyNanos).toList());
        assertEquals(OpType.FAIL, m.completions().get(2).type());
        HistoryMetrics.Availability a = m.availability();
        assertEquals(new HistoryMetrics.Availability(1, 2, 2, 2), a);
        assertEquals(0.5, a.duringFaults());
        assertEquals(1.0, a.outsideFaults());
        assertEquals(3 / 5.0, m.meanOkThroughput(), 1e-9, "3 ok ops over 5 s");
        double okInWindows = m.throughput().stream().mapToDouble(HistoryMetrics.ThroughputWindow::okPerSecond)
                .sum() * m.windowNanos() / 1e9;
        assertEquals(3.0, okInWindows, 1e-9);
        assertEquals(4, m.latencyQuantiles().stream().mapToInt(HistoryMetrics.LatencyWindow::count).sum());
    }

    @Test
    void ratesCountTheMainPhaseUntilTheFinalHealSplitByFaultTime() {
        SyntheticRun r = new SyntheticRun();
        // 0..10 s main phase; a partition from 2 s to 6 s; then a drain whose reads must not count
        for (int i = 0; i < 10; i++) {
            r.add(OpType.INVOKE, 0, i * S, "send", NONE, null);
            r.add(OpType.OK, 0, i * S + 10 * MS, "send", NONE, null);
            // every fault op is two entries, its start and its end, as the nemesis records them
            if (i == 2) {
                r.add(OpType.INFO, Op.NEMESIS, 2 * S + 400 * MS, "start-partition", NONE, null);
                r.add(OpType.INFO, Op.NEMESIS, 2 * S + 500 * MS, "start-partition", NONE, null);
            }
            if (i == 5) {
                r.add(OpType.INFO, Op.NEMESIS, 5 * S + 900 * MS, "stop-partition", NONE, null);
                r.add(OpType.INFO, Op.NEMESIS, 6 * S, "stop-partition", NONE, null);
            }
        }
        // the final heal, after a healthy window, ends the main phase and must not stretch the band
        r.add(OpType.INFO, Op.NEMESIS, 10 * S - 100 * MS, "stop-partition", NONE, null);
        r.add(OpType.INFO, Op.NEMESIS, 10 * S, "stop-partition", NONE, null);
        for (int i = 0; i < 50; i++) {
            r.add(OpType.INVOKE, 1, 11 * S + i * MS, "poll", NONE, null);
            r.add(OpType.OK, 1, 11 * S + i * MS + 1, "poll", NONE, null);
        }
        HistoryMetrics.Rates rates = HistoryMetrics.of(r.ops(), FaultBands.of(r.ops())).rates();
        assertEquals(3, rates.okDuring(), "sends completing at 3, 4 and 5 s");
        assertEquals(7, rates.okOutside(), "the other sends, no drain polls");
        assertEquals(3.6, rates.secondsDuring(), 1e-9);
        assertEquals(6.4, rates.secondsOutside(), 1e-9);
        assertEquals(7 / 6.4, rates.outsideFaults(), 1e-9);
    }

    @Test
    void quantilesUseNearestRank() {
        long[] sorted = new long[100];
        for (int i = 0; i < 100; i++) {
            sorted[i] = i + 1;
        }
        assertEquals(50, HistoryMetrics.quantile(sorted, 0.5));
        assertEquals(99, HistoryMetrics.quantile(sorted, 0.99));
        assertEquals(7, HistoryMetrics.quantile(new long[]{7}, 0.95));
    }

    @Test
    void windowsAreRoundLengths() {
        assertEquals(2 * S, HistoryMetrics.chooseWindow(120 * S));
        assertEquals(5 * S, HistoryMetrics.chooseWindow(121 * S));
        assertEquals(1 * S, HistoryMetrics.chooseWindow(40 * S));
        assertEquals(10 * S, HistoryMetrics.chooseWindow(600 * S));
        assertEquals(MS, HistoryMetrics.chooseWindow(0));
    }
}
