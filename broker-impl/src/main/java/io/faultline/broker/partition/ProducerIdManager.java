package io.faultline.broker.partition;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Hands out producer ids that are never reused, even across crashes: ids come in blocks whose end is made durable
 * before the first id of the block is used (as Kafka's controller allocates blocks).
 */
public final class ProducerIdManager {
    static final int BLOCK_SIZE = 1000;
    private final Path file;
    private long next;
    private long blockEnd;

    public ProducerIdManager(Path dataDir) {
        this.file = dataDir.resolve("faultline-producer-id-block");
        try {
            long start = Files.exists(file) ? Long.parseLong(Files.readString(file).trim()) : 0L;
            next = start;
            blockEnd = start;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public synchronized long nextProducerId() {
        if (next >= blockEnd) {
            blockEnd = next + BLOCK_SIZE;
            persist(blockEnd);
        }
        return next++;
    }

    private void persist(long end) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.write(tmp, Long.toString(end).getBytes(StandardCharsets.UTF_8));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot persist producer id block", e);
        }
    }
}
