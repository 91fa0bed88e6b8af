package io.faultline.broker.partition;

import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.LogManager;
import io.faultline.broker.storage.PartitionLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/** The partition logs of the log directories: a thin seam over the storage engine's {@link LogManager}s. */
public interface LogStore extends AutoCloseable {
    PartitionLog getOrCreate(TopicPartition tp);

    Optional<PartitionLog> get(TopicPartition tp);

    void delete(TopicPartition tp);

    void checkpoint();

    void maintenance();

    @Override
    void close();

    /** Opens the storage engine's LogManager on {@code dataDir}. */
    static LogStore open(Path dataDir, Function<TopicPartition, LogConfig> configFor,
                         io.faultline.broker.common.Time clock) throws IOException {
        return open(List.of(dataDir), configFor, clock);
    }

    /**
     * Opens one LogManager per directory of log.dirs. An existing partition stays in the directory that holds it; a
     * new one goes to the directory with the fewest partitions (as Kafka places new replicas).
     */
    static LogStore open(List<Path> dataDirs, Function<TopicPartition, LogConfig> configFor,
                         io.faultline.broker.common.Time clock) throws IOException {
        return open(dataDirs, configFor, clock, io.faultline.broker.common.SeededBugs.NONE);
    }

    /** As above, recovering with this node's seeded bugs. */
    static LogStore open(List<Path> dataDirs, Function<TopicPartition, LogConfig> configFor,
                         io.faultline.broker.common.Time clock, io.faultline.broker.common.SeededBugs bugs)
            throws IOException {
        List<LogManager> managers = new ArrayList<>();
        for (Path d : dataDirs) managers.add(LogManager.open(d, configFor, clock, bugs));
        for (int i = 0; i < managers.size(); i++) {
            for (int j = i + 1; j < managers.size(); j++) {
                for (PartitionLog pl : managers.get(i).allLogs()) {
                    if (managers.get(j).getLog(pl.topicPartition()).isPresent()) {
                        throw new IllegalStateException(pl.topicPartition() + " exists in both " + dataDirs.get(i)
                                + " and " + dataDirs.get(j));
                    }
                }
            }
        }
        return new LogStore() {
            private Optional<LogManager> holder(TopicPartition tp) {
                for (LogManager lm : managers) if (lm.getLog(tp).isPresent()) return Optional.of(lm);
                return Optional.empty();
            }

            @Override
            public synchronized PartitionLog getOrCreate(TopicPartition tp) {
                LogManager lm = holder(tp).orElseGet(() -> managers.stream()
                        .min(Comparator.comparingInt(m -> m.allLogs().size())).orElseThrow());
                return lm.getOrCreateLog(tp);
            }

            @Override
            public Optional<PartitionLog> get(TopicPartition tp) {
                return holder(tp).flatMap(lm -> lm.getLog(tp));
            }

            @Override
            public synchronized void delete(TopicPartition tp) {
                holder(tp).ifPresent(lm -> lm.deleteLog(tp));
            }

            @Override
            public void checkpoint() {
                managers.forEach(LogManager::checkpoint);
            }

            @Override
            public void maintenance() {
                managers.forEach(LogManager::runMaintenance);
            }

            @Override
            public void close() {
                managers.forEach(LogManager::close);
            }
        };
    }
}
