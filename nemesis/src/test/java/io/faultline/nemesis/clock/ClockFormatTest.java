package io.faultline.nemesis.clock;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ClockFormatTest {
    @Test
    void offsetsAreWrittenAsSignedSecondsWithMilliseconds() {
        assertEquals("+60.000", ClockNemesis.format(60_000));
        assertEquals("-0.250", ClockNemesis.format(-250));
        assertEquals("+0.000", ClockNemesis.format(0));
        assertEquals("-301.007", ClockNemesis.format(-301_007));
    }

    @Test
    void historyKeepsEverySampleAndTheCurrentOffset() {
        long[] now = {0};
        var h = new ClockHistory(() -> now[0]);
        assertEquals(0, h.current("n1"));
        h.record("n1", 500);
        now[0] = 10;
        h.record("n1", -20);
        assertEquals(-20, h.current("n1"));
        assertEquals(java.util.List.of(new ClockHistory.Sample(0, 500), new ClockHistory.Sample(10, -20)), h.series().get("n1"));
    }
}
