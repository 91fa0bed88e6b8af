package io.faultline.broker.replication;

import io.faultline.broker.common.Time;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link ReplicaFetcher} per source broker (Kafka's ReplicaFetcherManager with one fetcher per broker). With
 * {@code runThreads} each fetcher gets a daemon thread calling {@link ReplicaFetcher#doWork()} in a loop; without,
 * the owner drives the fetchers ({@link #doWorkOnce()}), which is how deterministic tests run them.
 */
public final class ReplicaFetcherManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherManager.class);

    private record Running(ReplicaFetcher fetcher, LeaderEndpoint endpoint, Thread thread) {
    }

    private final int localId;
    private final Time time;
    private final ReplicationConfig config;
    private final IntFunction<LeaderEndpoint> endpoints;
    private final boolean runThreads;
    private final Map<Integer, Running> fetchers = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Integer> sourceOf = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** @param endpoints opens a connection to a broker's replication listener, by broker id */
    public ReplicaFetcherManager(int localId, Time time, ReplicationConfig config, IntFunction<LeaderEndpoint> endpoints,
                                 boolean runThreads) {
        this.localId = localId;
        this.time = time;
        this.config = config;
        this.endpoints = endpoints;
        this.runThreads = runThreads;
    }

    public ReplicationConfig config() {
        return config;
    }

    /** Follows {@code tp} from {@code leaderId} in {@code leaderEpoch}, moving it off any other fetcher. */
    public synchronized void addPartition(int leaderId, TopicPartition tp, Uuid topicId, ReplicaLog replicaLog,
                                          int leaderEpoch) {
        if (closed) throw new IllegalStateException("fetcher manager of " + localId + " is closed");
        removePartition(tp);
        Running r = fetchers.computeIfAbsent(leaderId, this::start);
        r.fetcher().addPartition(tp, topicId, replicaLog, leaderEpoch);
        sourceOf.put(tp, leaderId);
    }

    public synchronized void removePartition(TopicPartition tp) {
        Integer source = sourceOf.remove(tp);
        if (source == null) return;
        Running r = fetchers.get(source);
        if (r != null) r.fetcher().removePartition(tp);
    }

    public Optional<ReplicaFetcher> fetcher(int sourceBrokerId) {
        Running r = fetchers.get(sourceBrokerId);
        return r == null ? Optional.empty() : Optional.of(r.fetcher());
    }

    public Optional<ReplicaFetcher> fetcherFor(TopicPartition tp) {
        Integer s = sourceOf.get(tp);
        return s == null ? Optional.empty() : fetcher(s);
    }

    public Collection<ReplicaFetcher> fetchers() {
        return fetchers.values().stream().map(Running::fetcher).toList();
    }

    /** One round of every fetcher (manual mode). Returns whether any fetcher did a round trip. */
    public boolean doWorkOnce() {
        boolean any = false;
        for (ReplicaFetcher f : List.copyOf(fetchers())) any |= f.doWork();
        return any;
    }

    private Running start(int sourceId) {
        LeaderEndpoint ep = endpoints.apply(sourceId);
        ReplicaFetcher f = new ReplicaFetcher(localId, sourceId, ep, time, config);
        Thread t = null;
        if (runThreads) {
            t = new Thread(() -> loop(f), "replica-fetcher-" + localId + "-from-" + sourceId);
            t.setDaemon(true);
            t.start();
        }
        return new Running(f, ep, t);
    }

    private void loop(ReplicaFetcher f) {
        while (!closed) {
            try {
                if (!f.doWork()) Thread.sleep(Math.max(1, config.fetchBackoffMs()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.error("Fetcher {} failed a round; backing off", f, e);
                try {
                    Thread.sleep(Math.max(1, config.fetchBackoffMs()));
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (Running r : fetchers.values()) {
            if (r.thread() != null) r.thread().interrupt();
            r.endpoint().close();
        }
        for (Running r : fetchers.values()) {
            if (r.thread() == null) continue;
            try {
                r.thread().join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        fetchers.clear();
        sourceOf.clear();
    }
}
