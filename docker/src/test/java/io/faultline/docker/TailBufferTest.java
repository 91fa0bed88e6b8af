package io.faultline.docker;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node log read back keeps only its end, whatever its size, and never starts mid-line. */
class TailBufferTest {
    @Test
    void keepsEverythingWhileItFits() {
        var t = new TailBuffer(16);
        t.write("ab\n".getBytes(StandardCharsets.UTF_8));
        t.write("cd\n".getBytes(StandardCharsets.UTF_8));
        assertFalse(t.truncated());
        assertEquals("ab\ncd\n", t.text());
    }

    @Test
    void keepsTheLastBytesAcrossManyWritesAndStartsAtAWholeLine() {
        var t = new TailBuffer(10);
        for (int i = 0; i < 1000; i++) t.write(("line " + i + "\n").getBytes(StandardCharsets.UTF_8));
        assertTrue(t.truncated());
        assertEquals(10 * 7 + 90 * 8 + 900 * 9, t.written(), "every byte counted, kept or not");
        assertArrayEquals("line 999\n".getBytes(StandardCharsets.UTF_8),
                java.util.Arrays.copyOfRange(t.bytes(), 1, 10), "the last ten bytes, in order");
        assertEquals("line 999\n", t.text(), "the cut line at the start is left out");
    }

    @Test
    void aChunkLargerThanTheBufferLeavesItsEnd() {
        var t = new TailBuffer(4);
        t.write("0123456789".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals("6789".getBytes(StandardCharsets.UTF_8), t.bytes());
        assertEquals(10, t.written());
    }
}
