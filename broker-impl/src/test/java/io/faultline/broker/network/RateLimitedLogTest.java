package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {
    @Test
    void firstEventInFullThenACountPerInterval() {
        ManualTime time = new ManualTime();
        List<String> lines = new ArrayList<>();
        RateLimitedLog log = new RateLimitedLog(lines::add, time, 1000);
        for (int i = 0; i < 1000; i++) log.warn("bad frame " + i);
        assertEquals(1, lines.size());
        assertTrue(lines.get(0).startsWith("bad frame 0 (similar events"), lines.get(0));
        assertEquals(999, log.suppressed());
        time.advance(999);
        log.flush();
        assertEquals(1, lines.size(), "interval not over yet");
        time.advance(1);
        log.flush();
        assertEquals(2, lines.size());
        assertEquals("999 more such events in the last 1000 ms, the first being: bad frame 0", lines.get(1));
        log.flush();
        assertEquals(2, lines.size(), "nothing to sum up");
        log.warn("late one");
        assertEquals(3, lines.size(), "a new interval starts with a full line");
        time.advance(5_000);
        log.warn("much later");
        assertEquals(4, lines.size(), "an interval without suppressed events leaves no summary");
        assertTrue(lines.get(3).startsWith("much later"));
    }
}
