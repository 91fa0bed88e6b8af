package io.faultline.harness.recovery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Polls the cluster from the end of the final heal on, in the background while the run's recovery wait, final
 * writes and final drain go on, so the time each broker and partition took to recover is measured from the heal.
 * {@link #finish} then keeps polling (in the caller's thread) until everything is recovered or the bound has passed,
 * with at least a short settle window after the final phase: a subject is judged by whether it recovered within the
 * bound and whether it is still fine at the end. Never throws.
 */
public final class RecoveryMonitor {
    /** Waits between polls; a test passes one that moves its manual clock. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private final Observation.Source source;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Duration bound;
    private final Duration pollInterval;
    private final Instant healedAt;
    private final RecoveryTracker tracker;
    private Thread background;
    private volatile boolean stop;

    public RecoveryMonitor(Observation.Source source, Clock clock, Sleeper sleeper, Duration bound, Duration pollInterval) {
        this.source = source;
        this.clock = clock;
        this.sleeper = sleeper;
        this.bound = bound;
        this.pollInterval = pollInterval;
        this.healedAt = clock.instant();
        this.tracker = new RecoveryTracker(healedAt);
    }

    public Instant healedAt() {
        return healedAt;
    }

    /** Starts polling on a daemon thread until {@link #finish}. */
    public synchronized void startInBackground() {
        if (background != null) return;
        background = new Thread(() -> {
            while (!stop) {
                pollOnce();
                try {
                    sleeper.sleep(pollInterval);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "faultline-recovery-monitor");
        background.setDaemon(true);
        background.start();
    }

    /**
     * Stops the background polling, then polls until everything is recovered, or until both the bound (from the
     * heal) and {@code settle} (from now) have passed. Returns what was seen.
     */
    public RecoveryTracker.Findings finish(Duration settle) {
        stopBackground();
        Instant until = later(healedAt.plus(bound), clock.instant().plus(settle));
        // A poll takes time, so "polled until the bound" must mean a poll that *began* at or after it: a last poll
        // begun just before the bound judges nothing (the check would call a cluster stuck for good unknown).
        Instant giveUp = until.plus(pollInterval.multipliedBy(4)); // backstop for a source whose polls all fail
        try {
            pollOnce();
            while (!lastAllOk() && !polledAtOrAfter(until) && clock.instant().isBefore(giveUp)) {
                Duration left = Duration.between(clock.instant(), until);
                sleeper.sleep(left.isNegative() || left.isZero() || left.compareTo(pollInterval) > 0 ? pollInterval : left);
                pollOnce();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // judged on what was seen so far
        }
        synchronized (tracker) {
            return tracker.findings();
        }
    }

    /**
     * The run's recovery wait: returns once a poll has found every broker serving and every partition's replica set
     * back in its ISR (true), or when {@code max} has passed (false). Reads the background poller's findings while it
     * runs, and polls itself otherwise.
     */
    public boolean awaitRecovered(Duration max) throws InterruptedException {
        Instant until = clock.instant().plus(max);
        while (true) {
            boolean polling;
            synchronized (this) {
                polling = background != null && !stop;
            }
            if (!polling) pollOnce();
            synchronized (tracker) {
                if (tracker.lastAllOk()) return true;
            }
            if (!clock.instant().isBefore(until)) return false;
            sleeper.sleep(pollInterval);
        }
    }

    /** Stops the background thread without judging (a run that ends early). */
    public void stopBackground() {
        Thread t;
        synchronized (this) {
            stop = true;
            t = background;
        }
        if (t == null) return;
        t.interrupt();
        try {
            t.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pollOnce() {
        Observation o;
        try {
            o = source.observe();
        } catch (RuntimeException e) {
            return; // a source never throws; if one does, this poll is simply missing
        }
        synchronized (tracker) {
            tracker.record(o);
        }
    }

    private boolean lastAllOk() {
        synchronized (tracker) {
            return tracker.lastAllOk();
        }
    }

    private boolean polledAtOrAfter(Instant t) {
        synchronized (tracker) {
            Instant last = tracker.lastPollAt();
            return last != null && !last.isBefore(t);
        }
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
