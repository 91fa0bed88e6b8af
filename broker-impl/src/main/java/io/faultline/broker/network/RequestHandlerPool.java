package io.faultline.broker.network;

import io.faultline.broker.common.FatalErrorHandler;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The I/O threads (num.io.threads): take requests from the channel and run them through the dispatcher. */
public final class RequestHandlerPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RequestHandlerPool.class);

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    public RequestHandlerPool(int numThreads, RequestChannel channel, RequestDispatcher dispatcher) {
        this(numThreads, channel, dispatcher, FatalErrorHandler.halting());
    }

    /** As above; an Error in a handler ends its thread and goes to {@code fatal} (the broker halts). */
    public RequestHandlerPool(int numThreads, RequestChannel channel, RequestDispatcher dispatcher,
                              FatalErrorHandler fatal) {
        for (int i = 0; i < numThreads; i++) {
            threads.add(fatal.newThread(() -> loop(channel, dispatcher), "io-thread-" + i));
        }
        threads.forEach(Thread::start);
    }

    private void loop(RequestChannel channel, RequestDispatcher dispatcher) {
        while (running) {
            Request r;
            try {
                r = channel.receiveRequest(300);
            } catch (InterruptedException e) {
                return;
            }
            if (r == null) continue;
            try {
                dispatcher.handle(r);
            } catch (RuntimeException e) {
                // The dispatcher answers errors itself; reaching here is a bug: close so the client retries.
                // Errors are not caught: a broker that hit OutOfMemoryError halts rather than limp on.
                log.error("Unhandled error for {}", r, e);
                channel.closeConnection(r);
            } finally {
                channel.requestHandled();
            }
        }
    }

    @Override
    public void close() {
        running = false;
        // No interrupt: a handler interrupted inside a FileChannel write closes that log segment's channel for
        // good (ClosedByInterruptException), and the broker's clean shutdown then fails to flush it. Each handler
        // sees running=false within its 300 ms poll.
        for (Thread t : threads) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
