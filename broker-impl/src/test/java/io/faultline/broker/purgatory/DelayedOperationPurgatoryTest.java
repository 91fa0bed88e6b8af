package io.faultline.broker.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DelayedOperationPurgatoryTest {
    private static final class Op extends DelayedOperation {
        final AtomicBoolean ready = new AtomicBoolean();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicBoolean expired = new AtomicBoolean();
        final CountDownLatch done = new CountDownLatch(1);

        Op(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            return ready.get() && forceComplete();
        }

        @Override
        protected void onComplete() {
            completions.incrementAndGet();
            done.countDown();
        }

        @Override
        protected void onExpiration() {
            expired.set(true);
        }
    }

    @Test
    void completesOnTriggerOnceAndExpiresOtherwise() throws Exception {
        try (DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("test")) {
            Op now = new Op(10_000);
            now.ready.set(true);
            assertTrue(p.tryCompleteElseWatch(now, List.of("a")));
            Op later = new Op(10_000);
            assertFalse(p.tryCompleteElseWatch(later, List.of("a", "b")));
            assertEquals(0, p.checkAndComplete("a"));
            later.ready.set(true);
            assertEquals(1, p.checkAndComplete("b"));
            assertEquals(0, p.checkAndComplete("a"), "completed once only");
            assertEquals(1, later.completions.get());
            assertFalse(later.expired.get());
            Op timeout = new Op(100);
            long start = System.nanoTime();
            assertFalse(p.tryCompleteElseWatch(timeout, List.of("c")));
            assertTrue(timeout.done.await(5, TimeUnit.SECONDS));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(90));
            assertTrue(timeout.expired.get());
            assertEquals(1, timeout.completions.get());
            assertEquals(0, p.watched(), "expired and completed operations are unwatched");
        }
    }
}
