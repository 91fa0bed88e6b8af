package io.faultline.broker.server;

import io.faultline.broker.common.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up timing: one INFO line per stage with how long it took and the time since start, so a slow start (issue 30
 * item 5: a silent 13–23 s between opening the data dir and listening) shows what it waited for.
 */
final class StartupStages {
    private static final Logger log = LoggerFactory.getLogger(StartupStages.class);

    private final int nodeId;
    private final Time time;
    private final long startMs;
    private long lastMs;

    StartupStages(int nodeId, Time time) {
        this.nodeId = nodeId;
        this.time = time;
        this.startMs = time.hiResMillis();
        this.lastMs = startMs;
    }

    /** The stage that just ended, with what it did; returns its duration in ms. */
    long done(String stage, String detail) {
        long now = time.hiResMillis();
        long took = now - lastMs;
        lastMs = now;
        log.info("Broker {} start-up: {} took {} ms ({}); {} ms since start", nodeId, stage, took, detail,
                now - startMs);
        return took;
    }

    long sinceStartMs() {
        return time.hiResMillis() - startMs;
    }
}
