package io.faultline.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Kafka's text checkpoint format: a version line ("0"), a count line, then one entry per line, written atomically
 * (write {@code <name>.tmp}, fsync, rename over the file, fsync the directory) so a crash leaves either the old or
 * the new content, never a mix.
 *
 * <p>Thread-safety: {@link #write} and {@link #read} are synchronized on this object.
 *
 * @param <T> entry type, formatted as one line of space-separated fields
 */
final class CheckpointFile<T> {
    static final int VERSION = 0;

    private final Path file;
    private final Function<T, String> formatter;
    private final Function<String[], T> parser;

    CheckpointFile(Path file, Function<T, String> formatter, Function<String[], T> parser) {
        this.file = file;
        this.formatter = formatter;
        this.parser = parser;
    }

    Path file() {
        return file;
    }

    synchronized void write(List<T> entries) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append(VERSION).append('\n').append(entries.size()).append('\n');
        for (T e : entries) sb.append(formatter.apply(e)).append('\n');
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
            while (buf.hasRemaining()) ch.write(buf);
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsyncDirectory(file.getParent());
    }

    /**
     * Reads the entries; an absent file is empty.
     *
     * @throws IOException if the file is malformed (wrong version, count mismatch, unparsable line)
     */
    synchronized List<T> read() throws IOException {
        if (!Files.exists(file)) return List.of();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        try {
            if (lines.size() < 2) throw new IOException("too short");
            int version = Integer.parseInt(lines.get(0).trim());
            if (version != VERSION) throw new IOException("unknown version " + version);
            int count = Integer.parseInt(lines.get(1).trim());
            List<String> body = lines.subList(2, lines.size()).stream().filter(l -> !l.isBlank()).toList();
            if (body.size() != count) throw new IOException("expected " + count + " entries, found " + body.size());
            List<T> out = new ArrayList<>(count);
            for (String line : body) out.add(parser.apply(line.trim().split("\\s+")));
            return out;
        } catch (RuntimeException e) {
            throw new IOException("malformed checkpoint " + file + ": " + e.getMessage(), e);
        }
    }

    static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems do not allow fsync of a directory; the rename itself is still atomic.
        }
    }
}
