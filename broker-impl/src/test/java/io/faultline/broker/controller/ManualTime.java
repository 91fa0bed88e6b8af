package io.faultline.broker.controller;

import io.faultline.broker.common.Time;

/** A clock that moves only when told to. */
final class ManualTime implements Time {
    private volatile long nanos = 1_000_000_000L;

    @Override
    public long milliseconds() {
        return nanos / 1_000_000L;
    }

    @Override
    public long nanoseconds() {
        return nanos;
    }

    void advanceMs(long ms) {
        nanos += ms * 1_000_000L;
    }
}
