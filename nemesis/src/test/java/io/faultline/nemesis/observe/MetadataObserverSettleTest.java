package io.faultline.nemesis.observe;

import io.faultline.checker.observe.ClusterSnapshot;
import io.faultline.checker.observe.ClusterSnapshot.PartitionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wait after the final heal ends on what the observer sees, never on a poll taken before the wait began. */
@Timeout(60)
class MetadataObserverSettleTest {
    private static ClusterSnapshot withIsr(Integer... isr) {
        return new ClusterSnapshot(true, 1, Set.of(1, 2, 3),
                Map.of("t-0-0", new PartitionState(1, List.of(1, 2, 3), Set.of(isr))));
    }

    private static MetadataObserver observer() {
        return new MetadataObserver("unused:9092", t -> true, Duration.ofMillis(500), () -> 0L, t -> {});
    }

    @Test
    void settledMeansAnsweredWithALeaderAndEveryReplicaInSync() {
        assertTrue(MetadataObserver.settled(withIsr(1, 2, 3)));
        assertFalse(MetadataObserver.settled(withIsr(1, 2)));
        assertFalse(MetadataObserver.settled(ClusterSnapshot.unanswered()));
        assertFalse(MetadataObserver.settled(new ClusterSnapshot(true, 1, Set.of(1, 2, 3),
                Map.of("t-0-0", new PartitionState(-1, List.of(1, 2, 3), Set.of(1, 2, 3))))));
    }

    @Test
    void aSettledPollBegunBeforeTheWaitDoesNotEndIt() throws Exception {
        MetadataObserver o = observer();
        o.record(o.beginPoll(), withIsr(1, 2, 3));
        assertFalse(o.awaitSettled(Duration.ZERO), "that poll may predate the heal");
    }

    @Test
    void theWaitEndsOnTheFirstFreshPollThatSeesEveryIsrFull() throws Exception {
        MetadataObserver o = observer();
        var waiter = new java.util.concurrent.atomic.AtomicReference<Thread>();
        CompletableFuture<Boolean> settled = CompletableFuture.supplyAsync(() -> {
            waiter.set(Thread.currentThread());
            try {
                return o.awaitSettled(Duration.ofMinutes(5));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // poll only once the waiter is parked in the wait, so the polls are fresh to it
        while (waiter.get() == null || waiter.get().getState() != Thread.State.TIMED_WAITING) Thread.sleep(1);
        o.record(o.beginPoll(), withIsr(1, 2));
        assertFalse(settled.isDone() && settled.get(), "a partition still catching up does not end the wait");
        o.record(o.beginPoll(), withIsr(1, 2, 3));
        assertTrue(settled.get());
    }
}
