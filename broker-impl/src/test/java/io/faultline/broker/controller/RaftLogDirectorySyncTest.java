package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which fsyncs the Raft log's directory sync issues before each log force (a recording syncer). */
class RaftLogDirectorySyncTest {
    @TempDir
    Path root;

    private final List<String> calls = new ArrayList<>();
    private final DurableFiles.Syncer recording = new DurableFiles.Syncer() {
        @Override
        public void force(FileChannel channel, Path file) {
            calls.add("file " + root.relativize(file));
        }

        @Override
        public void forceDirectory(Path dir) {
            calls.add("dir " + (dir.startsWith(root) ? root.relativize(dir) : dir));
        }
    };

    @Test
    void theDirectoryEveryTimeItsAncestorsOnceAndEachClosedSegmentOncePerNameAndLength() throws IOException {
        Path current = Files.createDirectories(root.resolve("meta/group/current"));
        Files.writeString(current.resolve("raft-meta"), "term 1");
        Files.writeString(current.resolve("log_inprogress_0"), "entries");
        RaftLogDirectorySync sync = RaftLogDirectorySync.forCurrentDir(current, recording);

        sync.beforeLogForce();
        assertEquals(List.of("dir meta/group/current", "dir meta/group", "dir meta", "dir "), calls);

        calls.clear();
        sync.beforeLogForce();
        assertEquals(List.of("dir meta/group/current"), calls, "nothing else changed");

        // A roll: the open segment becomes a closed one (Ratis forced it), a new one opens.
        Files.move(current.resolve("log_inprogress_0"), current.resolve("log_0-9"));
        Files.writeString(current.resolve("log_inprogress_10"), "more");
        calls.clear();
        sync.beforeLogForce();
        assertEquals(List.of("file meta/group/current/log_0-9", "dir meta/group/current"), calls);

        // A truncation: Ratis shortens the closed segment (unforced) and renames it.
        Files.writeString(current.resolve("log_0-9"), "entr");
        Files.move(current.resolve("log_0-9"), current.resolve("log_0-5"));
        calls.clear();
        sync.beforeLogForce();
        assertEquals(List.of("file meta/group/current/log_0-5", "dir meta/group/current"), calls);

        calls.clear();
        sync.beforeLogForce();
        assertEquals(List.of("dir meta/group/current"), calls);
    }
}
