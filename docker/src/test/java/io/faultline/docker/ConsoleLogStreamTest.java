package io.faultline.docker;

import com.github.dockerjava.api.model.StreamType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How engine frames become the console file: whole lines, timestamps removed, re-delivered lines dropped. */
class ConsoleLogStreamTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void linesSplitAnywhereBetweenFramesAreJoinedAndTheirStampsRemoved(@TempDir Path dir) throws Exception {
        var stream = new ConsoleLogStream(null, "c", dir.resolve("n1/console.log"));
        // frames cut inside a timestamp, inside a line, and with two lines at once; stderr interleaved
        stream.write(StreamType.STDOUT, b("2026-12-01T20:59:59.1000"));
        stream.write(StreamType.STDERR, b("2026-12-01T20:59:59.150000000Z err one\n"));
        stream.write(StreamType.STDOUT, b("00000Z first line\n2026-12-01T20:59:59.200000000Z sec"));
        stream.write(StreamType.STDOUT, b("ond line\n"));
        stream.write(StreamType.STDOUT, b("2026-12-01T20:59:59.300000000Z no end yet"));
        stream.closeFile();
        assertEquals("err one\nfirst line\nsecond line\nno end yet", Files.readString(dir.resolve("n1/console.log")));
    }

    @Test
    void aReattachFromTheSameSecondRepeatsNothing(@TempDir Path dir) throws Exception {
        var stream = new ConsoleLogStream(null, "c", dir.resolve("console.log"));
        stream.write(StreamType.STDOUT, b("2026-12-01T21:00:00.100000000Z a\n2026-12-01T21:00:00.200000000Z b\n"));
        // the node restarted; the new stream starts at second 21:00:00 and so delivers a and b again
        stream.write(StreamType.STDOUT, b("2026-12-01T21:00:00.100000000Z a\n2026-12-01T21:00:00.200000000Z b\n"
                + "2026-12-01T21:00:01.000000000Z c\n"));
        stream.closeFile();
        assertEquals("a\nb\nc\n", Files.readString(dir.resolve("console.log")));
    }
}
