package io.faultline.broker.partition;

import io.faultline.broker.partition.ProducerStateManager.BatchMetadata;
import io.faultline.broker.partition.ProducerStateManager.AbortedTxn;
import io.faultline.broker.partition.ProducerStateManager.ProducerSnapshot;
import io.faultline.broker.partition.ProducerStateManager.StateSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Producer-state snapshots, so a restart replays only the log written after the last snapshot instead of the
 * whole log. One file per partition in {@code <log dir>/faultline-producer-state/}, holding the topic id, the
 * log end offset the state covers and a CRC. A snapshot is trusted only if its CRC and topic id match and its
 * offset is not beyond the recovered log end (an unclean shutdown may have cut the log below it); otherwise it
 * is deleted and the state rebuilt from the log.
 */
final class ProducerStateSnapshots {
    private static final Logger log = LoggerFactory.getLogger(ProducerStateSnapshots.class);
    /** Format 2 adds open transactions and the aborted-transaction index; a format-1 file is rebuilt from the log. */
    private static final int MAGIC = 0x0FA17002;

    /** A loaded snapshot: the state of every producer in the log below {@code offset}. */
    record Snapshot(long offset, StateSnapshot state) {
    }

    private final Path dir;

    ProducerStateSnapshots(Path logDir) {
        this.dir = logDir.resolve("faultline-producer-state");
        deleteUninstalled();
    }

    /** Files prepared but never installed or abandoned (the node stopped in between) are of no use. */
    private void deleteUninstalled() {
        if (!Files.isDirectory(dir)) return;
        try (var files = Files.newDirectoryStream(dir, "*.tmp")) {
            for (Path f : files) abandon(f);
        } catch (IOException e) {
            log.warn("Cannot list {}: {}", dir, e.toString());
        }
    }

    private Path file(TopicPartition tp) {
        return dir.resolve(tp.topic() + "-" + tp.partition() + ".snapshot");
    }

    /**
     * Writes a snapshot to a file of its own beside the live one, not yet trusted by {@link #read}: the caller
     * {@link #install}s it once it knows the log has not been cut since the state was taken, or {@link #abandon}s it.
     *
     * @return the written file, or null if it could not be written (logged; the state is rebuilt from the log then)
     */
    Path prepare(TopicPartition tp, Uuid topicId, long offset, StateSnapshot state) {
        List<ProducerSnapshot> producers = state.producers();
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            out.writeLong(topicId.getMostSignificantBits());
            out.writeLong(topicId.getLeastSignificantBits());
            out.writeLong(offset);
            out.writeInt(producers.size());
            for (ProducerSnapshot p : producers) {
                out.writeLong(p.producerId());
                out.writeShort(p.epoch());
                out.writeLong(p.txnFirstOffset());
                out.writeInt(p.batches().size());
                for (BatchMetadata b : p.batches()) {
                    out.writeInt(b.firstSeq());
                    out.writeInt(b.lastSeq());
                    out.writeLong(b.firstOffset());
                    out.writeLong(b.lastOffset());
                    out.writeLong(b.maxTimestamp());
                }
            }
            out.writeInt(state.aborted().size());
            for (AbortedTxn a : state.aborted()) {
                out.writeLong(a.producerId());
                out.writeLong(a.firstOffset());
                out.writeLong(a.lastOffset());
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes.toByteArray());
            out.writeLong(crc.getValue());
            Files.createDirectories(dir);
            // A file per writer: the maintenance task and a shutdown may snapshot the same partition at once.
            Path tmp = Files.createTempFile(dir, file(tp).getFileName().toString(), ".tmp");
            Files.write(tmp, bytes.toByteArray());
            return tmp;
        } catch (IOException e) {
            log.warn("Cannot write producer-state snapshot of {}: {}", tp, e.toString());
            return null;
        }
    }

    /** Makes a {@link #prepare}d file the partition's snapshot (an atomic rename). */
    void install(TopicPartition tp, Path prepared) {
        try {
            Files.move(prepared, file(tp), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("Cannot install producer-state snapshot of {}: {}", tp, e.toString());
            abandon(prepared);
        }
    }

    /** Deletes a {@link #prepare}d file that must not become the snapshot. */
    void abandon(Path prepared) {
        try {
            Files.deleteIfExists(prepared);
        } catch (IOException e) {
            log.warn("Cannot delete {}: {}", prepared, e.toString());
        }
    }

    /** Writes and installs at once (tests, and callers that hold the partition's append lock). */
    void write(TopicPartition tp, Uuid topicId, long offset, StateSnapshot state) {
        Path prepared = prepare(tp, topicId, offset, state);
        if (prepared != null) install(tp, prepared);
    }

    /** The snapshot if it is usable for a log ending at {@code logEndOffset}; an unusable one is deleted. */
    Optional<Snapshot> read(TopicPartition tp, Uuid topicId, long logEndOffset) {
        Path f = file(tp);
        if (!Files.exists(f)) return Optional.empty();
        try {
            ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(f));
            CRC32C crc = new CRC32C();
            crc.update(buf.array(), 0, buf.limit() - 8);
            if (buf.limit() < 36 || buf.getLong(buf.limit() - 8) != crc.getValue() || buf.getInt() != MAGIC) {
                return discard(tp, "corrupt");
            }
            Uuid id = new Uuid(buf.getLong(), buf.getLong());
            long offset = buf.getLong();
            if (!id.equals(topicId)) return discard(tp, "of another topic incarnation");
            if (offset > logEndOffset) return discard(tp, "beyond the recovered log end " + logEndOffset);
            int n = buf.getInt();
            List<ProducerSnapshot> producers = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long pid = buf.getLong();
                short epoch = buf.getShort();
                long txnFirstOffset = buf.getLong();
                int batches = buf.getInt();
                List<BatchMetadata> bs = new ArrayList<>(batches);
                for (int j = 0; j < batches; j++) {
                    bs.add(new BatchMetadata(buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong(), buf.getLong()));
                }
                producers.add(new ProducerSnapshot(pid, epoch, txnFirstOffset, bs));
            }
            int abortedCount = buf.getInt();
            List<AbortedTxn> aborted = new ArrayList<>(abortedCount);
            for (int i = 0; i < abortedCount; i++) aborted.add(new AbortedTxn(buf.getLong(), buf.getLong(), buf.getLong()));
            return Optional.of(new Snapshot(offset, new StateSnapshot(producers, aborted)));
        } catch (IOException | RuntimeException e) {
            return discard(tp, "unreadable (" + e + ")");
        }
    }

    void delete(TopicPartition tp) {
        try {
            Files.deleteIfExists(file(tp));
        } catch (IOException e) {
            log.warn("Cannot delete producer-state snapshot of {}: {}", tp, e.toString());
        }
    }

    private Optional<Snapshot> discard(TopicPartition tp, String why) {
        log.warn("Ignoring producer-state snapshot of {}: {}; rebuilding from the log", tp, why);
        delete(tp);
        return Optional.empty();
    }
}
