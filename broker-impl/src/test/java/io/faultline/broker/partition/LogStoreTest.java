package io.faultline.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.storage.LogConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogStoreTest {
    @TempDir
    Path dir;

    @Test
    void newPartitionsSpreadOverAllLogDirsAndStayWhereTheyAreAfterARestart() throws Exception {
        List<Path> dirs = List.of(dir.resolve("a"), dir.resolve("b"));
        ManualTime time = new ManualTime();
        try (LogStore store = LogStore.open(dirs, tp -> LogConfig.DEFAULT, time)) {
            for (int p = 0; p < 4; p++) store.getOrCreate(new TopicPartition("t", p));
        }
        for (Path d : dirs) {
            try (var s = Files.list(d)) {
                assertEquals(2, s.filter(f -> f.getFileName().toString().startsWith("t-")).count(), d.toString());
            }
        }
        try (LogStore store = LogStore.open(List.of(dirs.get(1), dirs.get(0)), tp -> LogConfig.DEFAULT, time)) {
            for (int p = 0; p < 4; p++) assertTrue(store.get(new TopicPartition("t", p)).isPresent());
            store.getOrCreate(new TopicPartition("t", 0));
            store.delete(new TopicPartition("t", 1));
        }
        long left;
        try (var a = Files.list(dirs.get(0)); var b = Files.list(dirs.get(1))) {
            left = java.util.stream.Stream.concat(a, b).filter(f -> f.getFileName().toString().matches("t-\\d+")).count();
        }
        assertEquals(3, left, "reopening found every partition in its own directory; one deleted");
    }
}
