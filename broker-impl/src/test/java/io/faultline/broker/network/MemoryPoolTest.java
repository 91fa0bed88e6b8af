package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MemoryPoolTest {
    @Test
    void reservesWithinCapacityAndWakesWaitersOnRelease() {
        MemoryPool pool = new MemoryPool(800);
        AtomicInteger wakeups = new AtomicInteger();
        pool.onRelease(wakeups::incrementAndGet);
        assertTrue(pool.tryReserve(700, false));
        assertFalse(pool.tryReserve(200, false), "growth must fit the capacity");
        assertTrue(pool.tryReserve(150, true), "a first buffer may use the reserve (an eighth: 100)");
        assertFalse(pool.tryReserve(60, true), "but not beyond it");
        assertEquals(850, pool.used());
        pool.release(700);
        assertEquals(1, wakeups.get(), "one wake-up for the waiters");
        pool.release(50);
        assertEquals(1, wakeups.get(), "no waiter left, no wake-up");
        assertEquals(100, pool.used());
        assertThrows(IllegalStateException.class, () -> pool.release(101));
        assertThrows(IllegalArgumentException.class, () -> pool.tryReserve(801, false));
        assertThrows(IllegalArgumentException.class, () -> new MemoryPool(0));
    }
}
