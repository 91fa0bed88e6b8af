package io.faultline.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * Owns every {@link PartitionLog} of one data directory, like Kafka's LogManager: the partition directories
 * {@code <topic>-<partition>}, the checkpoint files replication-offset-checkpoint (high watermarks),
 * recovery-point-offset-checkpoint and log-start-offset-checkpoint, and the clean-shutdown marker
 * {@code .kafka_cleanshutdown}.
 *
 * <p>On {@link #open} the marker is read and removed (so a crash from then on is an unclean shutdown), the
 * checkpoints are read and every partition directory is recovered. {@link #close()} flushes every log, writes the
 * checkpoints and then the marker.
 *
 * <p>Thread-safety: all methods may be called from any thread; per-partition operations follow
 * {@link PartitionLog}'s one-writer-many-readers rule.
 */
public final class LogManager implements Closeable {

    public static final String CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
    public static final String REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint";
    public static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
    public static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";

    private LogManager() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Opens the data directory (creating it if needed) and recovers every partition in it.
     *
     * @param configFor config of each partition (called for existing directories and by {@link #getOrCreateLog})
     */
    public static LogManager open(Path dataDir, Function<TopicPartition, LogConfig> configFor, LogClock clock)
            throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    /** Returns the partition's log, creating an empty one if it does not exist. */
    public PartitionLog getOrCreateLog(TopicPartition tp) {
        throw new UnsupportedOperationException("not yet");
    }

    public Optional<PartitionLog> getLog(TopicPartition tp) {
        throw new UnsupportedOperationException("not yet");
    }

    public Collection<PartitionLog> allLogs() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Closes the partition's log and deletes its directory. */
    public void deleteLog(TopicPartition tp) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Writes the three checkpoint files atomically (tmp + fsync + rename). */
    public void checkpoint() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * One round of background work: flush.ms flushes, retention, compaction, removal of old {@code .deleted}
     * files, checkpoints. Call it periodically (e.g. every few seconds) from one thread.
     */
    public void runMaintenance() {
        throw new UnsupportedOperationException("not yet");
    }

    public Path dataDir() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Whether the last shutdown of this data directory was clean (marker found at open). */
    public boolean hadCleanShutdown() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Clean shutdown: flushes and closes every log, writes checkpoints, then the clean-shutdown marker. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("not yet");
    }
}
