package io.faultline.lazyfs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The filesystem's forgetting, through a real FUSE mount on the host. */
class LazyFsTest {
    private Mounted m;

    /** Once per class: provisions libfuse2 when it can, else the class fails with one line saying what to install. */
    @BeforeAll
    static void fuseOnThisHost() {
        HostFuse.ensureAvailable();
    }

    @BeforeEach
    void mount() throws IOException {
        m = new Mounted();
    }

    @AfterEach
    void unmount() throws IOException {
        m.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void write(FileChannel ch, long at, String s) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes(s));
        while (b.hasRemaining()) ch.write(b, at + b.position());
    }

    @Test
    void forgetKeepsExactlyTheFsyncedBytes() throws IOException {
        Path f = m.path("log");
        try (var ch = FileChannel.open(f, CREATE, WRITE, READ)) {
            m.syncDir("");
            write(ch, 0, "durable-part-one.");
            ch.force(true);
            write(ch, 8, "OVERWRITTEN");          // inside the durable image
            write(ch, 17, "appended and lost");   // past it
            ch.truncate(12);                        // and a cut below the durable length
            write(ch, 30, "far past the end");
        }
        assertTrue(Files.readString(f).startsWith("durable-OVER\0"), "written through before the forget");
        var forgotten = m.fs.forget(false);
        assertEquals(1, forgotten.filesReverted());
        assertEquals("durable-part-one.", Files.readString(f));
        assertEquals("durable-part-one.", Files.readString(m.backing.resolve("log")), "the backing file holds it too");
    }

    @Test
    void aFileNeverFsyncedIsEmptyButPresentWhenItsDirectoryWasSynced() throws IOException {
        Files.writeString(m.path("a"), "never fsynced");
        m.syncDir("");
        m.fs.forget(false);
        assertTrue(Files.exists(m.path("a")));
        assertEquals(0, Files.size(m.path("a")));
    }

    @Test
    void aFileCreatedWithoutADirectoryFsyncVanishes() throws IOException {
        Files.createDirectories(m.path("d"));
        m.syncDir("");
        try (var ch = FileChannel.open(m.path("d/new"), CREATE, WRITE)) {
            write(ch, 0, "content fsynced, entry not");
            ch.force(true);
        }
        try (var ch = FileChannel.open(m.path("d/kept"), CREATE, WRITE)) {
            write(ch, 0, "both");
            ch.force(true);
        }
        m.syncDir("d");
        try (var ch = FileChannel.open(m.path("d/late"), CREATE, WRITE)) {
            write(ch, 0, "entry after the directory fsync");
            ch.force(true);
        }
        m.fs.forget(false);
        assertTrue(Files.exists(m.path("d/new")), "the directory fsync after it made the entry durable");
        assertEquals("content fsynced, entry not", Files.readString(m.path("d/new")));
        assertEquals("both", Files.readString(m.path("d/kept")));
        assertFalse(Files.exists(m.path("d/late")), "created after the last directory fsync: gone");
        assertFalse(Files.exists(m.backing.resolve("d/late")));
    }

    @Test
    void aDirectoryCreatedWithoutAParentFsyncVanishesWithItsFiles() throws IOException {
        Files.createDirectories(m.path("topic-0"));
        Files.writeString(m.path("topic-0/00.log"), "x");
        m.syncDir("topic-0"); // the child's entries, not the directory's own entry in the root
        m.fs.forget(false);
        // The dependency rule: syncing topic-0 made its creation durable too (its entries need it to exist).
        assertTrue(Files.exists(m.path("topic-0/00.log")));
        Files.createDirectories(m.path("other-0"));
        Files.writeString(m.path("other-0/00.log"), "y");
        m.fs.forget(false);
        assertFalse(Files.exists(m.path("other-0")));
    }

    @Test
    void renameThenForgetWithoutADirectoryFsyncBringsTheOldNameBack() throws IOException {
        Files.writeString(m.path("checkpoint.tmp"), "new state");
        Files.writeString(m.path("checkpoint"), "old state");
        try (var ch = FileChannel.open(m.path("checkpoint"), WRITE)) {
            ch.force(true);
        }
        try (var ch = FileChannel.open(m.path("checkpoint.tmp"), WRITE)) {
            ch.force(true);
        }
        m.syncDir("");
        Files.move(m.path("checkpoint.tmp"), m.path("checkpoint"), StandardCopyOption.ATOMIC_MOVE);
        assertEquals("new state", Files.readString(m.path("checkpoint")));
        var forgotten = m.fs.forget(false);
        assertEquals(1, forgotten.directoryOpsUndone());
        assertEquals("old state", Files.readString(m.path("checkpoint")), "the replaced file is back");
        assertEquals("new state", Files.readString(m.path("checkpoint.tmp")), "and the renamed one under its old name");

        Files.move(m.path("checkpoint.tmp"), m.path("checkpoint"), StandardCopyOption.ATOMIC_MOVE);
        m.syncDir("");
        m.fs.forget(false);
        assertEquals("new state", Files.readString(m.path("checkpoint")));
        assertFalse(Files.exists(m.path("checkpoint.tmp")));
        assertFalse(Files.list(m.backing.resolve(LazyFs.GRAVEYARD.substring(1))).findAny().isPresent(),
                "the durable replace left no grave behind");
    }

    @Test
    void deletionWithoutADirectoryFsyncIsUndone() throws IOException {
        Files.writeString(m.path("segment"), "data");
        try (var ch = FileChannel.open(m.path("segment"), WRITE)) {
            ch.force(true);
        }
        m.syncDir("");
        Files.delete(m.path("segment"));
        assertFalse(Files.exists(m.path("segment")));
        m.fs.forget(false);
        assertEquals("data", Files.readString(m.path("segment")));
        Files.delete(m.path("segment"));
        m.syncDir("");
        m.fs.forget(false);
        assertFalse(Files.exists(m.path("segment")));
    }

    @Test
    void memoryMappedWritesFollowTheirMsync() throws IOException {
        Path idx = m.path("00.index");
        try (var ch = FileChannel.open(idx, CREATE, READ, WRITE)) {
            m.syncDir("");
            ch.truncate(8192); // preallocated like Kafka's index files
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8192);
            map.putLong(0, 11);
            map.force();
            map.putLong(8, 22);
            map.putLong(4096, 33);
            map.force(0, 8192); // written to the file, but the file is not fsynced by this alone
        }
        // msync reaches the filesystem as an fsync of the file: the second round is durable as well.
        m.fs.forget(false);
        try (var ch = FileChannel.open(idx, READ)) {
            ByteBuffer b = ByteBuffer.allocate(8192);
            while (b.hasRemaining() && ch.read(b) > 0) { }
            assertEquals(8192, ch.size());
            assertEquals(11, b.getLong(0));
            assertEquals(22, b.getLong(8));
            assertEquals(33, b.getLong(4096));
        }
        try (var ch = FileChannel.open(idx, READ, WRITE)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8192);
            map.putLong(16, 44); // dirty page, never written back
        }
        m.fs.forget(false);
        try (var ch = FileChannel.open(idx, READ)) {
            ByteBuffer b = ByteBuffer.allocate(24);
            ch.read(b, 0);
            assertEquals(0, b.getLong(16), "unmapped without msync: whatever reached the file was not fsynced");
        }
    }

    @Test
    void theControlPipeAnswersCommands() throws Exception {
        Path ctl = m.dir.resolve("ctl");
        new Control(m.fs, ctl).start();
        Files.writeString(m.path("x"), "unsynced");
        Files.writeString(ctl.resolve(Control.PIPE), "status s1\nforget f1\nbogus\n", StandardOpenOption.WRITE);
        String reply = awaitReply(ctl, "f1");
        assertTrue(reply.startsWith("ok Forgotten[filesReverted=1, directoryOpsUndone=1"), reply);
        assertTrue(awaitReply(ctl, "s1").startsWith("ok files-tracked="));
        assertFalse(Files.exists(m.path("x")));
    }

    static String awaitReply(Path ctl, String id) throws Exception {
        Path reply = ctl.resolve(id + ".reply");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!Files.exists(reply)) {
            if (System.nanoTime() > deadline) throw new AssertionError("no reply " + id);
            Thread.sleep(10);
        }
        return Files.readString(reply).trim();
    }

    @Test
    void hiddenGraveyardIsNeverListed() throws IOException {
        Files.writeString(m.path("a"), "a");
        Files.delete(m.path("a"));
        try (var s = Files.list(m.mount)) {
            assertEquals(0, s.count());
        }
        assertFalse(Files.exists(m.path(LazyFs.GRAVEYARD.substring(1))));
    }
}
