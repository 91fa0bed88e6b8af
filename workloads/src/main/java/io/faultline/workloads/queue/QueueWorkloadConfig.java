package io.faultline.workloads.queue;

import java.time.Duration;

/**
 * Everything one queue run needs.
 *
 * @param bootstrapServers  Kafka bootstrap string, e.g. "127.0.0.1:9092"
 * @param topicPrefix       topics are named prefix-N; use a fresh prefix per run
 * @param settings          client settings
 * @param seed              generator seed: same seed, same op stream
 * @param timeLimit         length of the main phase
 * @param concurrency       worker threads (each with its own producer and consumer)
 * @param opsPerSecond      target rate over all workers (random spacing with this mean); ≤ 0 for no limit
 * @param keys              key generation (active keys, retirement, distribution, op mix)
 * @param finalTimeout      bound on the final drain phase
 * @param topicConfigs      topic configs the workload's topics are created with (e.g. segment.ms); empty: the broker's
 * @param shapedRecords     send records of many sizes with headers and check every byte read ({@link RecordShapes});
 *                          needs brokers that take record headers (Kafka 0.11+)
 */
public record QueueWorkloadConfig(String bootstrapServers, String topicPrefix, QueueSettings settings, long seed,
                                  Duration timeLimit, int concurrency, double opsPerSecond, QueueOps.Options keys,
                                  Duration finalTimeout, java.util.Map<String, String> topicConfigs,
                                  boolean shapedRecords) {

    public QueueWorkloadConfig {
        topicConfigs = topicConfigs == null ? java.util.Map.of() : java.util.Map.copyOf(topicConfigs);
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be ≥ 1");
        }
        if (topicPrefix == null || topicPrefix.isBlank()) {
            throw new IllegalArgumentException("topicPrefix is required");
        }
    }

    /** 30 s at 100 ops/s with 5 workers, default settings and key options, 60 s final drain bound. */
    public static QueueWorkloadConfig defaults(String bootstrapServers, String topicPrefix) {
        return new QueueWorkloadConfig(bootstrapServers, topicPrefix, QueueSettings.defaults(), 1,
                Duration.ofSeconds(30), 5, 100, QueueOps.Options.defaults(), Duration.ofSeconds(60), java.util.Map.of(), false);
    }

    public QueueWorkloadConfig withBootstrap(String servers) {
        return new QueueWorkloadConfig(servers, topicPrefix, settings, seed, timeLimit, concurrency, opsPerSecond,
                keys, finalTimeout, topicConfigs, shapedRecords);
    }

    public QueueWorkloadConfig withSettings(QueueSettings s) {
        return new QueueWorkloadConfig(bootstrapServers, topicPrefix, s, seed, timeLimit, concurrency, opsPerSecond,
                keys, finalTimeout, topicConfigs, shapedRecords);
    }

    public QueueWorkloadConfig withRun(long newSeed, Duration limit, int threads, double rate) {
        return new QueueWorkloadConfig(bootstrapServers, topicPrefix, settings, newSeed, limit, threads, rate, keys,
                finalTimeout, topicConfigs, shapedRecords);
    }

    public QueueWorkloadConfig withKeys(QueueOps.Options k) {
        return new QueueWorkloadConfig(bootstrapServers, topicPrefix, settings, seed, timeLimit, concurrency,
                opsPerSecond, k, finalTimeout, topicConfigs, shapedRecords);
    }

    public QueueWorkloadConfig withFinalTimeout(Duration d) {
        return new QueueWorkloadConfig(bootstrapServers, topicPrefix, settings, seed, timeLimit, concurrency,
                opsPerSecond, keys, d, topicConfigs, shapedRecords);
    }

    public QueueWorkloadConfig withTopicConfigs(java.util.Map<String, String> configs) {
        return new QueueWorkloadConfig(bootstrapServers, topicPrefix, settings, seed, timeLimit, concurrency,
                opsPerSecond, keys, finalTimeout, configs, shapedRecords);
    }

    public QueueWorkloadConfig withShapedRecords(boolean shaped) {
        return new QueueWorkloadConfig(bootstrapServers, topicPrefix, settings, seed, timeLimit, concurrency,
                opsPerSecond, keys, finalTimeout, topicConfigs, shaped);
    }

    /** The consumer group used in SUBSCRIBE mode. */
    public String groupId() {
        return settings.groupId() != null ? settings.groupId() : defaultGroupId(topicPrefix);
    }

    /** The consumer group of a run whose topics begin with {@code topicPrefix}, unless set otherwise. */
    public static String defaultGroupId(String topicPrefix) {
        return topicPrefix + "-group";
    }
}
