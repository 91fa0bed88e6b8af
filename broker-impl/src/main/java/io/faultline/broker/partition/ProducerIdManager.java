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
    /** Ids carry the node id in their low bits, so two brokers never hand out the same id (no controller blocks yet). */
    static final int NODE_BITS = 10;
    private final Path file;
    private final int nodeId;
    private long next;
    private long blockEnd;

    public ProducerIdManager(Path dataDir) {
        this(dataDir, 0);
    }

    public ProducerIdManager(Path dataDir, int nodeId) {
        if (nodeId < 0 || nodeId >= 1 << NODE_BITS) throw new IllegalArgumentException("node id out of range: " + nodeId);
        this.nodeId = nodeId;
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
        return (next++ << NODE_BITS) | nodeId;
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
