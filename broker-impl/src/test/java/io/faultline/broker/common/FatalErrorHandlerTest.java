package io.faultline.broker.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** As the JVM default handler only Errors halt; from the broker's own threads anything does. */
class FatalErrorHandlerTest {
    @Test
    void aRuntimeExceptionInAThreadTheBrokerDoesNotOwnIsLoggedNotFatal() throws Exception {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        FatalErrorHandler h = new FatalErrorHandler(status::complete);
        Thread library = new Thread(() -> {
            throw new IllegalStateException("a library worker gives up");
        }, "library-worker");
        library.setUncaughtExceptionHandler(h); // as Thread.setDefaultUncaughtExceptionHandler would apply it
        library.start();
        library.join(30_000);
        assertFalse(library.isAlive());
        assertFalse(status.isDone(), "no halt for an exception in a library thread");
        assertTrue(h.firstFatal().isEmpty());

        h.uncaughtException(library, new OutOfMemoryError("test"));
        assertEquals(FatalErrorHandler.EXIT_STATUS, status.get(30, TimeUnit.SECONDS), "an Error anywhere halts");
    }

    @Test
    void anExceptionEscapingABrokerThreadHalts() throws Exception {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        FatalErrorHandler h = new FatalErrorHandler(status::complete);
        Thread t = h.newThread(() -> {
            throw new IllegalStateException("a broker loop let an exception through");
        }, "broker-loop");
        t.start();
        assertEquals(FatalErrorHandler.EXIT_STATUS, status.get(30, TimeUnit.SECONDS));
        assertEquals("broker-loop", h.firstFatal().orElseThrow().where());
    }
}
