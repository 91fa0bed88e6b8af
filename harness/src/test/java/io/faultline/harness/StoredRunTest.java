package io.faultline.harness;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** test.json read back: history time 0 is when the recorder started, not when the run did. */
class StoredRunTest {
    @Test
    void historyTimeZeroIsTheRecordedOriginAndTheRunStartOnlyForOlderRuns() {
        var both = Map.<String, Object>of("started-at", "2026-12-01T20:56:40Z", "history-origin", "2026-12-01T20:57:11.500Z");
        assertEquals(Instant.parse("2026-12-01T20:57:11.500Z"), StoredRun.startedAt(both),
                "node log lines are matched to ops from the moment the history began");
        assertEquals(Instant.parse("2026-12-01T20:56:40Z"), StoredRun.startedAt(Map.of("started-at", "2026-12-01T20:56:40Z")));
        assertEquals(Instant.EPOCH, StoredRun.startedAt(Map.of()));
    }
}
