package io.faultline.broker.storage;

import io.faultline.broker.common.Time;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    private static final Logger log = LoggerFactory.getLogger(LogManager.class);

    public static final String CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
    public static final String REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint";
    public static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
    public static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";

    private record PartitionOffset(TopicPartition tp, long offset) {
    }

    private final Path dataDir;
    private final Function<TopicPartition, LogConfig> configFor;
    private final Time clock;
    private final boolean hadCleanShutdown;
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    private final CheckpointFile<PartitionOffset> highWatermarks;
    private final CheckpointFile<PartitionOffset> recoveryPoints;
    private final CheckpointFile<PartitionOffset> logStartOffsets;
    private volatile boolean closed;

    private LogManager(Path dataDir, Function<TopicPartition, LogConfig> configFor, Time clock, boolean clean) {
        this.dataDir = dataDir;
        this.configFor = configFor;
        this.clock = clock;
        this.hadCleanShutdown = clean;
        this.highWatermarks = checkpoint(dataDir.resolve(REPLICATION_OFFSET_CHECKPOINT));
        this.recoveryPoints = checkpoint(dataDir.resolve(RECOVERY_POINT_CHECKPOINT));
        this.logStartOffsets = checkpoint(dataDir.resolve(LOG_START_OFFSET_CHECKPOINT));
    }

    private static CheckpointFile<PartitionOffset> checkpoint(Path file) {
        return new CheckpointFile<>(file, e -> e.tp().topic() + " " + e.tp().partition() + " " + e.offset(),
                f -> new PartitionOffset(new TopicPartition(f[0], Integer.parseInt(f[1])), Long.parseLong(f[2])));
    }

    /**
     * Opens the data directory (creating it if needed) and recovers every partition in it.
     *
     * @param configFor config of each partition (called for existing directories and by {@link #getOrCreateLog})
     */
    public static LogManager open(Path dataDir, Function<TopicPartition, LogConfig> configFor, Time clock)
            throws IOException {
        return open(dataDir, configFor, clock, io.faultline.broker.common.SeededBugs.NONE);
    }

    /** As above, recovering with this node's seeded bugs (recovery-keeps-torn-batch). */
    public static LogManager open(Path dataDir, Function<TopicPartition, LogConfig> configFor, Time clock,
                                  io.faultline.broker.common.SeededBugs bugs) throws IOException {
        Files.createDirectories(dataDir);
        Path marker = dataDir.resolve(CLEAN_SHUTDOWN_FILE);
        boolean clean = Files.exists(marker);
        LogManager lm = new LogManager(dataDir, configFor, clock, clean);
        Map<TopicPartition, Long> hw = lm.readOrEmpty(lm.highWatermarks);
        Map<TopicPartition, Long> rp = lm.readOrEmpty(lm.recoveryPoints);
        Map<TopicPartition, Long> lso = lm.readOrEmpty(lm.logStartOffsets);
        List<Path> dirs;
        try (Stream<Path> s = Files.list(dataDir)) {
            dirs = s.filter(Files::isDirectory).toList();
        }
        for (Path d : dirs) {
            TopicPartition tp;
            try {
                tp = LogFileNames.topicPartitionOf(d);
            } catch (IllegalArgumentException e) {
                log.info("Ignoring {}: not a partition directory", d);
                continue;
            }
            RecoveryState state = new RecoveryState(rp.getOrDefault(tp, 0L), lso.getOrDefault(tp, 0L),
                    hw.getOrDefault(tp, 0L), clean);
            lm.logs.put(tp, PartitionLog.open(d, configFor.apply(tp), clock, state, bugs));
        }
        // From now on a crash is an unclean shutdown: remove the marker only after recovery succeeded.
        Files.deleteIfExists(marker);
        CheckpointFile.fsyncDirectory(dataDir);
        lm.checkpoint();
        log.info("Opened data dir {} with {} partitions (clean shutdown: {})", dataDir, lm.logs.size(), clean);
        return lm;
    }

    private Map<TopicPartition, Long> readOrEmpty(CheckpointFile<PartitionOffset> file) {
        Map<TopicPartition, Long> out = new HashMap<>();
        try {
            for (PartitionOffset p : file.read()) out.put(p.tp(), p.offset());
        } catch (IOException e) {
            // Never refuse to start on a bad checkpoint: recovering everything from 0 is always safe.
            log.error("Ignoring unreadable checkpoint {}: {}", file.file(), e.getMessage());
        }
        return out;
    }

    /** Returns the partition's log, creating an empty one if it does not exist. */
    public PartitionLog getOrCreateLog(TopicPartition tp) {
        ensureOpen();
        return logs.computeIfAbsent(tp, t -> {
            try {
                PartitionLog created = PartitionLog.open(dataDir.resolve(LogFileNames.dirName(t)), configFor.apply(t),
                        clock, RecoveryState.UNKNOWN);
                // The new directory's entry in the data directory is durable only once the data directory is
                // synced (POSIX): without this, power loss before the next checkpoint could take the whole
                // partition, even records fsynced under flush.messages=1 (Kafka flushes the parent here too).
                CheckpointFile.fsyncDirectory(dataDir);
                return created;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create log for " + t, e);
            }
        });
    }

    public Optional<PartitionLog> getLog(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    public Collection<PartitionLog> allLogs() {
        return List.copyOf(logs.values());
    }

    /** Closes the partition's log and deletes its directory. */
    public void deleteLog(TopicPartition tp) {
        PartitionLog pl = logs.remove(tp);
        if (pl != null) pl.delete();
        checkpoint();
    }

    /** Writes the three checkpoint files atomically (tmp + fsync + rename). */
    public synchronized void checkpoint() {
        List<PartitionOffset> hw = new ArrayList<>();
        List<PartitionOffset> rp = new ArrayList<>();
        List<PartitionOffset> lso = new ArrayList<>();
        for (PartitionLog pl : logs.values()) {
            hw.add(new PartitionOffset(pl.topicPartition(), pl.highWatermark()));
            rp.add(new PartitionOffset(pl.topicPartition(), pl.recoveryPoint()));
            lso.add(new PartitionOffset(pl.topicPartition(), pl.logStartOffset()));
        }
        try {
            highWatermarks.write(hw);
            recoveryPoints.write(rp);
            logStartOffsets.write(lso);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write checkpoints in " + dataDir, e);
        }
    }

    /**
     * One round of background work: flush.ms flushes, retention, compaction, removal of old {@code .deleted}
     * files, checkpoints. Call it periodically (e.g. every few seconds) from one thread.
     */
    public void runMaintenance() {
        ensureOpen();
        for (PartitionLog pl : logs.values()) {
            try {
                pl.flushIfDue();
                pl.deleteOldSegments();
                pl.compact();
                pl.removeDeletedFiles();
            } catch (RuntimeException e) {
                log.error("Maintenance of {} failed", pl.topicPartition(), e);
            }
        }
        checkpoint();
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Whether the last shutdown of this data directory was clean (marker found at open). */
    public boolean hadCleanShutdown() {
        return hadCleanShutdown;
    }

    /** Clean shutdown: flushes and closes every log, writes checkpoints, then the clean-shutdown marker. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        for (PartitionLog pl : logs.values()) pl.close();
        checkpoint();
        try {
            Files.writeString(dataDir.resolve(CLEAN_SHUTDOWN_FILE), "{\"version\":0,\"brokerEpoch\":-1}",
                    StandardCharsets.UTF_8);
            try (var ch = java.nio.channels.FileChannel.open(dataDir.resolve(CLEAN_SHUTDOWN_FILE),
                    java.nio.file.StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            CheckpointFile.fsyncDirectory(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write clean shutdown marker in " + dataDir, e);
        }
        log.info("Closed data dir {} cleanly", dataDir);
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("log manager of " + dataDir + " is closed");
    }
}
