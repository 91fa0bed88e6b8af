package io.faultline.broker.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs blocking requests to other brokers on one thread per destination, in the order given for each. A broker that
 * accepts connections but never answers (frozen, or cut off after the handshake) holds up only what is sent to it,
 * for as long as the socket timeout: with a single thread for every destination, one frozen broker stopped every
 * transaction of the cluster that needed a marker or a partition added elsewhere, for the whole freeze (seen in a
 * nightly run of 7 December 2026 by the failover check: no transactional write for 30 s with one broker paused). Kafka's
 * marker channel keeps a queue per destination broker for the same reason.
 */
final class PerBrokerSenders implements AutoCloseable {
    private final String name;
    private final Map<Integer, ExecutorService> byBroker = new ConcurrentHashMap<>();
    private volatile boolean closed;

    PerBrokerSenders(String name) {
        this.name = name;
    }

    /**
     * Runs {@code task} on {@code broker}'s thread, after what was sent to it before.
     *
     * @throws RejectedExecutionException once closed
     */
    void execute(int broker, Runnable task) {
        if (closed) throw new RejectedExecutionException(name + " closed");
        byBroker.computeIfAbsent(broker, b -> Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name + "-to-" + b);
            t.setDaemon(true);
            return t;
        })).execute(task);
    }

    /** Stops every thread, interrupting a request in flight, and waits a little for them to end. */
    @Override
    public void close() {
        closed = true;
        byBroker.values().forEach(ExecutorService::shutdownNow);
        for (ExecutorService s : byBroker.values()) {
            try {
                s.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
