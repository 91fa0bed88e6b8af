package io.faultline.broker.storage;

import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand, forward and backward. Thread-safe. */
final class ManualClock implements LogClock {
    private final AtomicLong now;

    ManualClock(long start) {
        now = new AtomicLong(start);
    }

    @Override
    public long milliseconds() {
        return now.get();
    }

    void advance(long ms) {
        now.addAndGet(ms);
    }

    void set(long ms) {
        now.set(ms);
    }
}
