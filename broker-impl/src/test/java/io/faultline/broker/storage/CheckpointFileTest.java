package io.faultline.broker.storage;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileTest {
    @TempDir
    Path dir;

    record Entry(String topic, int partition, long offset) {
    }

    CheckpointFile<Entry> file() {
        return new CheckpointFile<>(dir.resolve("replication-offset-checkpoint"),
                e -> e.topic() + " " + e.partition() + " " + e.offset(),
                f -> new Entry(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2])));
    }

    @Test
    void writesKafkaTextFormatAtomically() throws IOException {
        CheckpointFile<Entry> f = file();
        f.write(List.of(new Entry("a", 0, 5), new Entry("b-c", 12, 7)));
        assertEquals("0\n2\na 0 5\nb-c 12 7\n", Files.readString(f.file()));
        assertEquals(List.of(new Entry("a", 0, 5), new Entry("b-c", 12, 7)), f.read());
        assertFalse(Files.exists(dir.resolve("replication-offset-checkpoint.tmp")));
        f.write(List.of());
        assertEquals("0\n0\n", Files.readString(f.file()));
    }

    @Test
    void rejectsMalformedFiles() throws IOException {
        CheckpointFile<Entry> f = file();
        assertEquals(List.of(), f.read()); // absent
        for (String bad : List.of("1\n0\n", "0\n2\na 0 5\n", "0\n1\na zero 5\n", "0\n", "")) {
            Files.writeString(f.file(), bad);
            assertThrows(IOException.class, f::read, bad);
        }
    }
}
