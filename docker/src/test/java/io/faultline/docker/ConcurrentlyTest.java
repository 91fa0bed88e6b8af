package io.faultline.docker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@Timeout(60)
class ConcurrentlyTest {

    @Test
    void everyItemRunsAtOnceWhateverTheCoreCount() {
        // Each action waits until all seven have started: only a runner that really runs them all at the same time
        // gets past (a loop, or a parallel stream on a 2-core machine's common pool, runs two at most and times out).
        int n = 7;
        var allStarted = new CountDownLatch(n);
        Set<String> metEveryone = ConcurrentHashMap.newKeySet();
        Concurrently.forEach(List.of("n1", "n2", "n3", "n4", "n5", "n6", "n7"), "test", node -> {
            allStarted.countDown();
            try {
                if (allStarted.await(30, TimeUnit.SECONDS)) metEveryone.add(node);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertEquals(n, metEveryone.size(), "every action saw all the others running");
    }

    @Test
    void resultsComeBackInItemOrder() {
        assertEquals(List.of("N1", "N2", "N3"), Concurrently.map(List.of("n1", "n2", "n3"), "test", String::toUpperCase));
        assertEquals(List.of(), Concurrently.map(List.<String>of(), "test", String::toUpperCase));
    }

    @Test
    void aFailingItemDoesNotStopTheOthersAndIsRethrownAfterAll() {
        Set<String> done = ConcurrentHashMap.newKeySet();
        var e = assertThrows(IllegalStateException.class, () ->
                Concurrently.forEach(List.of("n1", "n2", "n3"), "test", node -> {
                    if (!node.equals("n2")) throw new IllegalStateException(node + " broke");
                    done.add(node);
                }));
        assertEquals(Set.of("n2"), done);
        assertEquals("n1 broke", e.getMessage(), "the first failure in item order");
        assertEquals(1, e.getSuppressed().length);
        assertEquals("n3 broke", e.getSuppressed()[0].getMessage());
    }
}
