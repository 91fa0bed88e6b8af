package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A snapshot file is forced whole before it gets its name, and the directory is forced after the rename. */
class DurableFilesTest {
    @TempDir
    Path dir;

    @Test
    void theDataIsForcedBeforeTheRenameAndTheDirectoryAfterIt() throws IOException {
        Path target = dir.resolve("snapshot.1_10");
        byte[] data = "image bytes".getBytes(StandardCharsets.UTF_8);
        List<String> events = new ArrayList<>();
        DurableFiles.write(target, data, new DurableFiles.Syncer() {
            @Override
            public void force(FileChannel channel, Path file) throws IOException {
                events.add("force " + file.getFileName() + " size=" + channel.size() + " target=" + Files.exists(target));
                DurableFiles.FSYNC.force(channel, file);
            }

            @Override
            public void forceDirectory(Path d) throws IOException {
                events.add("forceDir " + d.equals(dir.toAbsolutePath()) + " target=" + Files.exists(target));
                DurableFiles.FSYNC.forceDirectory(d);
            }
        });
        assertEquals(List.of("force snapshot.1_10.tmp size=" + data.length + " target=false", "forceDir true target=true"), events);
        assertArrayEquals(data, Files.readAllBytes(target));
        assertEquals(List.of(target), Files.list(dir).toList());
    }

    @Test
    void anExistingFileIsReplacedWhole() throws IOException {
        Path target = dir.resolve("f");
        Files.write(target, new byte[1000]);
        DurableFiles.write(target, new byte[] {1, 2}, DurableFiles.FSYNC);
        assertArrayEquals(new byte[] {1, 2}, Files.readAllBytes(target));
    }
}
