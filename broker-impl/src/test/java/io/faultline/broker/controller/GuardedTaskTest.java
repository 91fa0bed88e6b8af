package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A bug in one of the controller's tasks must not reach the uncaught-exception handler (which halts the broker). */
class GuardedTaskTest {

    @Test
    void aRuntimeExceptionIsLoggedAndTheThreadCarriesOnAnErrorStillPropagates() throws InterruptedException {
        AtomicInteger uncaught = new AtomicInteger();
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "guarded-test");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((th, e) -> uncaught.incrementAndGet());
            return t;
        });
        try {
            CountDownLatch after = new CountDownLatch(1);
            executor.execute(ControllerNode.guarded("tick", () -> {
                throw new IllegalStateException("a bug");
            }));
            executor.execute(after::countDown);
            assertTrue(after.await(30, TimeUnit.SECONDS));
            assertEquals(0, uncaught.get());
        } finally {
            executor.shutdownNow();
        }
        assertThrows(StackOverflowError.class, () -> ControllerNode.guarded("tick", () -> {
            throw new StackOverflowError();
        }).run());
    }
}
