package io.faultline.broker.partition;

import io.faultline.broker.storage.LogClock;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fallback used only while the storage engine's LogManager is not available: opens each partition directory
 * with {@link PartitionLog#open} and full recovery (no checkpoints). Correct but slower to start.
 */
final class DirectLogStore implements LogStore {
    private static final Logger log = LoggerFactory.getLogger(DirectLogStore.class);

    private final Path dataDir;
    private final Function<TopicPartition, LogConfig> configFor;
    private final LogClock clock;
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();

    DirectLogStore(Path dataDir, Function<TopicPartition, LogConfig> configFor, LogClock clock) throws IOException {
        this.dataDir = dataDir;
        this.configFor = configFor;
        this.clock = clock;
        Files.createDirectories(dataDir);
        try (Stream<Path> dirs = Files.list(dataDir)) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                if (!Files.isDirectory(d)) continue;
                TopicPartition tp;
                try {
                    tp = PartitionLog.parseTopicPartition(d);
                } catch (RuntimeException e) {
                    continue;
                }
                logs.put(tp, PartitionLog.open(d, configFor.apply(tp), clock, RecoveryState.UNKNOWN));
            }
        }
        log.warn("LogManager unavailable: opened {} partitions of {} directly", logs.size(), dataDir);
    }

    @Override
    public PartitionLog getOrCreate(TopicPartition tp) {
        return logs.computeIfAbsent(tp, t -> {
            try {
                return PartitionLog.open(dataDir.resolve(PartitionLog.dirName(t)), configFor.apply(t), clock,
                        RecoveryState.UNKNOWN);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Override
    public Optional<PartitionLog> get(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    @Override
    public void delete(TopicPartition tp) {
        PartitionLog l = logs.remove(tp);
        if (l != null) l.delete();
    }

    @Override
    public void checkpoint() {
        // no checkpoints without LogManager
    }

    @Override
    public void maintenance() {
        for (PartitionLog l : logs.values()) {
            try {
                l.flushIfDue();
                l.deleteOldSegments();
                l.removeDeletedFiles();
            } catch (RuntimeException e) {
                log.warn("Maintenance of {} failed: {}", l.topicPartition(), e.toString());
            }
        }
    }

    @Override
    public void close() {
        for (PartitionLog l : logs.values()) l.close();
        logs.clear();
    }
}
