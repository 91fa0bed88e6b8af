package io.faultline.broker.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The on-disk half of a sparse index ({@link OffsetIndex}, {@link TimeIndex}): fixed-size entries, written lazily
 * after the ones already persisted, so the file always holds exactly {@code persisted * entrySize} bytes.
 *
 * <p>Thread-safety: used by the index's single writer only.
 */
final class IndexFile {
    /** Puts entry {@code i} into the buffer, in the file's byte layout. */
    interface EntryWriter {
        void write(ByteBuffer buf, int i);
    }

    private final int entrySize;
    private Path path;
    private int persisted; // entries already in the file

    IndexFile(Path path, int entrySize) {
        this.path = path;
        this.entrySize = entrySize;
    }

    Path path() {
        return path;
    }

    /** Writes entries [persisted, count) and fsyncs when asked. */
    void flush(int count, EntryWriter writer, boolean fsync) {
        if (persisted == count && !fsync) return;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            if (persisted < count) {
                ByteBuffer buf = ByteBuffer.allocate((count - persisted) * entrySize);
                for (int i = persisted; i < count; i++) writer.write(buf, i);
                buf.flip();
                long pos = (long) persisted * entrySize;
                while (buf.hasRemaining()) pos += ch.write(buf, pos);
                ch.truncate((long) count * entrySize);
                persisted = count;
            }
            if (fsync) ch.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path, e);
        }
    }

    /** The file's whole entries, or null when it is missing, unreadable or not a whole number of entries. */
    ByteBuffer read() {
        try {
            if (!Files.exists(path)) return null;
            byte[] bytes = Files.readAllBytes(path);
            return bytes.length % entrySize == 0 ? ByteBuffer.wrap(bytes) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** After a successful load: the file holds {@code count} entries. */
    void loaded(int count) {
        persisted = count;
    }

    /** Keeps only the first {@code count} entries on disk. */
    void truncateTo(int count) {
        if (persisted > count) {
            persisted = count;
            truncateFile((long) count * entrySize);
        }
    }

    void reset() {
        persisted = 0;
        truncateFile(0);
    }

    void renameTo(Path target) throws IOException {
        if (Files.exists(path)) Files.move(path, target, StandardCopyOption.REPLACE_EXISTING);
        path = target;
    }

    void delete() throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public String toString() {
        return path.toString();
    }

    private void truncateFile(long size) {
        if (!Files.exists(path)) return;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            if (ch.size() > size) ch.truncate(size);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot truncate " + path, e);
        }
    }
}
