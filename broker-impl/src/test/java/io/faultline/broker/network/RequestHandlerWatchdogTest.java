package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Real I/O threads whose handler blocks (as in a lock-order deadlock) while requests queue up: on an injected clock,
 * the watchdog reports the stall once the bound has passed between two samples, never for an idle node or a paused
 * one, and reports progress again once the handlers move.
 */
class RequestHandlerWatchdogTest {
    private static final long BOUND_MS = 10_000;

    private final ManualTime time = new ManualTime();
    private final RequestChannel channel = new RequestChannel(16);
    private final CountDownLatch unblock = new CountDownLatch(1);
    private RequestHandlerPool handlers;

    @AfterEach
    void close() {
        unblock.countDown();
        if (handlers != null) handlers.close();
    }

    private static Request request(int correlationId) {
        return new Request(0, "c", new RequestHeader(ApiKeys.METADATA, (short) 12, "client", correlationId), null,
                0, "127.0.0.1");
    }

    /** Two I/O threads; every request blocks its thread until {@link #unblock} opens. */
    private void startBlockingHandlers() {
        handlers = new RequestHandlerPool(2, channel, r -> {
            try {
                unblock.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Test
    void queuedRequestsThatNoHandlerFinishesForTheBoundStopTheNodesHeartbeats() throws Exception {
        startBlockingHandlers();
        RequestHandlerWatchdog watchdog = new RequestHandlerWatchdog(time, BOUND_MS);
        watchdog.watch("PLAINTEXT", channel);
        for (int i = 0; i < 5; i++) channel.sendRequest(request(i));
        // Both threads hold a request; three stay queued.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> channel.queuedRequests() == 3);

        assertTrue(watchdog.progressing(), "first sample: the stall starts now");
        time.advance(BOUND_MS - 1);
        assertTrue(watchdog.progressing(), "just under the bound");
        time.advance(1);
        assertFalse(watchdog.progressing(), "no request handled for the bound with requests queued");

        unblock.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> channel.handledRequests() == 5);
        assertTrue(watchdog.progressing(), "handlers moved again");
    }

    @Test
    void anIdleNodeIsNeverStalled() {
        startBlockingHandlers();
        RequestHandlerWatchdog watchdog = new RequestHandlerWatchdog(time, BOUND_MS);
        watchdog.watch("PLAINTEXT", channel);
        for (int i = 0; i < 5; i++) {
            assertTrue(watchdog.progressing());
            time.advance(BOUND_MS);
        }
        assertTrue(watchdog.progressing());
    }

    @Test
    void aLongGapBetweenSamplesIsNotAStallByItself() throws Exception {
        startBlockingHandlers();
        RequestHandlerWatchdog watchdog = new RequestHandlerWatchdog(time, BOUND_MS);
        watchdog.watch("PLAINTEXT", channel);
        assertTrue(watchdog.progressing());
        for (int i = 0; i < 3; i++) channel.sendRequest(request(i));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> channel.queuedRequests() == 1);
        // The JVM was paused for longer than the bound: the first sample after it only starts the clock.
        time.advance(5 * BOUND_MS);
        assertTrue(watchdog.progressing());
        time.advance(BOUND_MS);
        assertFalse(watchdog.progressing());
    }
}
