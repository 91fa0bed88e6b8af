package io.faultline.broker.partition;

import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.LogManager;
import io.faultline.broker.storage.PartitionLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/** The partition logs of the data directory: a thin seam over the storage engine's {@link LogManager}. */
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
        LogManager lm = LogManager.open(dataDir, configFor, clock);
        return new LogStore() {
            @Override
            public PartitionLog getOrCreate(TopicPartition tp) {
                return lm.getOrCreateLog(tp);
            }

            @Override
            public Optional<PartitionLog> get(TopicPartition tp) {
                return lm.getLog(tp);
            }

            @Override
            public void delete(TopicPartition tp) {
                lm.deleteLog(tp);
            }

            @Override
            public void checkpoint() {
                lm.checkpoint();
            }

            @Override
            public void maintenance() {
                lm.runMaintenance();
            }

            @Override
            public void close() {
                lm.close();
            }
        };
    }
}
