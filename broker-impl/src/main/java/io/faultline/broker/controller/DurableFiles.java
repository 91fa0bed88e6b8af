package io.faultline.broker.controller;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes a file so that it is on disk, whole, under its final name before the caller goes on: written to a
 * temporary file and forced, renamed atomically, then the directory forced (the rename itself is only durable
 * once the directory is). Snapshots need this: Ratis purges the log entries a snapshot covers right after.
 */
final class DurableFiles {
    /** The fsync calls, a seam so a test can see their order. */
    interface Syncer {
        void force(FileChannel channel, Path file) throws IOException;

        void forceDirectory(Path dir) throws IOException;
    }

    static final Syncer FSYNC = new Syncer() {
        @Override
        public void force(FileChannel channel, Path file) throws IOException {
            channel.force(true);
        }

        @Override
        public void forceDirectory(Path dir) throws IOException {
            try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }
    };

    private DurableFiles() { }

    static void write(Path target, byte[] data, Syncer syncer) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(data);
            while (buf.hasRemaining()) ch.write(buf);
            syncer.force(ch, tmp);
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        syncer.forceDirectory(target.toAbsolutePath().getParent());
    }
}
