package io.faultline.broker.network;

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
        for (int i = 0; i < numThreads; i++) {
            Thread t = new Thread(() -> loop(channel, dispatcher), "io-thread-" + i);
            t.setDaemon(true);
            threads.add(t);
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
            } catch (Throwable t) {
                // The dispatcher answers errors itself; reaching here is a bug: close so the client retries.
                log.error("Unhandled error for {}", r, t);
                channel.closeConnection(r);
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
