package io.faultline.broker.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DelayedOperationPurgatoryTest {
    private static final class Op extends DelayedOperation {
        final AtomicBoolean ready = new AtomicBoolean();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicBoolean expired = new AtomicBoolean();

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
        }

        @Override
        protected void onExpiration() {
            expired.set(true);
        }
    }

    @Test
    void completesOnTriggerOnceAndExpiresOtherwise() throws Exception {
        ManualTime time = new ManualTime();
        try (DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("test", time.scheduler())) {
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
            time.advance(20_000);
            assertFalse(later.expired.get(), "a completed operation's deadline is cancelled");
            assertEquals(1, later.completions.get());

            Op timeout = new Op(100);
            assertFalse(p.tryCompleteElseWatch(timeout, List.of("c")));
            time.advance(99);
            assertFalse(timeout.expired.get(), "not before its deadline");
            assertEquals(1, p.watched());
            time.advance(1);
            assertTrue(timeout.expired.get(), "expired at its deadline");
            assertEquals(1, timeout.completions.get());
            assertEquals(0, p.watched(), "expired and completed operations are unwatched");
            assertEquals(0, p.checkAndComplete("c"));
            assertEquals(1, timeout.completions.get(), "an expired operation is not completed again");
        }
    }

    @Test
    void anOperationCompletedThroughOneKeyIsNoLongerHeldByItsOtherKeys() {
        ManualTime time = new ManualTime();
        try (DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("test", time.scheduler())) {
            for (int i = 0; i < 100; i++) {
                Op op = new Op(10_000);
                assertFalse(p.tryCompleteElseWatch(op, List.of("busy", "idle-1", "idle-2")));
                op.ready.set(true);
                assertEquals(1, p.checkAndComplete("busy"));
            }
            // "idle-1" and "idle-2" never change, so nothing else would ever look at their watchers again.
            assertEquals(0, p.watched(), "completed operations are dropped from every key they watched");
            assertEquals(0, time.pendingTasks(), "and their deadlines are cancelled");
        }
    }

    @Test
    void closeCancelsPendingDeadlines() {
        ManualTime time = new ManualTime();
        Op waiting = new Op(1000);
        try (DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("test", time.scheduler())) {
            assertFalse(p.tryCompleteElseWatch(waiting, List.of("a")));
            assertEquals(1, time.pendingTasks());
        }
        assertEquals(0, time.pendingTasks());
        time.advance(5000);
        assertEquals(0, waiting.completions.get());
    }
}
