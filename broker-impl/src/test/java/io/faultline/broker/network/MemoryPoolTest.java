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
        assertTrue(pool.tryReserve(150, true), "a small request may use the reserve (an eighth: 100)");
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

    @Test
    void queuedMaxRequestBytesIsOnByDefault() {
        java.util.Properties p = new java.util.Properties();
        assertEquals(MemoryPool.defaultCapacity(), io.faultline.broker.config.BrokerConfig.from(p).queuedMaxRequestBytes());
        assertTrue(MemoryPool.defaultCapacity() <= 100L << 20 && MemoryPool.defaultCapacity() > 0);
        p.setProperty("queued.max.request.bytes", "5000000");
        assertEquals(5_000_000, io.faultline.broker.config.BrokerConfig.from(p).queuedMaxRequestBytes());
        p.setProperty("queued.max.request.bytes", "-1"); // Kafka's "unbounded"
        assertEquals(Long.MAX_VALUE, io.faultline.broker.config.BrokerConfig.from(p).queuedMaxRequestBytes());
    }

    @Test
    void anUnboundedPoolNeverOverflows() {
        MemoryPool pool = new MemoryPool(Long.MAX_VALUE); // queued.max.request.bytes=-1
        assertTrue(pool.tryReserve(Integer.MAX_VALUE, false));
        assertTrue(pool.tryReserve(16 * 1024, true));
        assertTrue(pool.tryReserve(Integer.MAX_VALUE, false));
    }
}
