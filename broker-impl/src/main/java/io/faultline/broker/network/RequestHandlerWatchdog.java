package io.faultline.broker.network;

import io.faultline.broker.common.Time;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells whether the I/O threads make progress: a channel with requests queued whose handlers finished none for
 * {@code stallTimeoutMs} is stalled (every I/O thread deadlocked or stuck). A stalled node must stop heartbeating so
 * the controller fences it: a node that answers nothing while it stays registered, unfenced and leader of its
 * partitions is a gray failure that looks healthy to the cluster.
 * <p>
 * Judged from samples ({@link #progressing()}, called on each heartbeat tick), never from a single gap: a stall
 * starts at the first sample that sees queued requests and no progress since the previous one, so a node whose JVM
 * was paused (its samples stopped too) is not judged stalled for the pause.
 */
public final class RequestHandlerWatchdog {
    private static final Logger log = LoggerFactory.getLogger(RequestHandlerWatchdog.class);

    private final Time time;
    private final long stallTimeoutMs;
    private final List<Watched> channels = new CopyOnWriteArrayList<>();

    /** One channel's last sample (guarded by the watchdog). */
    private static final class Watched {
        final String name;
        final RequestChannel channel;
        long lastHandled;
        /** Monotonic ms of the first sample of the current stall; -1 while progressing. */
        long stalledSinceMs = -1;
        boolean reported;

        Watched(String name, RequestChannel channel) {
            this.name = name;
            this.channel = channel;
            this.lastHandled = channel.handledRequests();
        }
    }

    public RequestHandlerWatchdog(Time time, long stallTimeoutMs) {
        if (stallTimeoutMs <= 0) throw new IllegalArgumentException("stall timeout must be > 0: " + stallTimeoutMs);
        this.time = time;
        this.stallTimeoutMs = stallTimeoutMs;
    }

    /** Watches the handlers of {@code channel} (named for the log, e.g. its listener). */
    public void watch(String name, RequestChannel channel) {
        channels.add(new Watched(name, channel));
    }

    /** Samples every channel; false while any has had requests queued and none handled for the stall timeout. */
    public synchronized boolean progressing() {
        long now = time.nanoseconds() / 1_000_000;
        boolean ok = true;
        for (Watched w : channels) {
            long handled = w.channel.handledRequests();
            int queued = w.channel.queuedRequests();
            if (handled != w.lastHandled || queued == 0) {
                if (w.reported) log.warn("Request handlers of {} make progress again", w.name);
                w.lastHandled = handled;
                w.stalledSinceMs = -1;
                w.reported = false;
                continue;
            }
            if (w.stalledSinceMs < 0) {
                w.stalledSinceMs = now;
            } else if (now - w.stalledSinceMs >= stallTimeoutMs) {
                if (!w.reported) {
                    log.error("Request handlers of {} handled nothing for {} ms with {} requests queued: stalled; "
                            + "heartbeats stop so the controller fences this node", w.name, now - w.stalledSinceMs,
                            queued);
                    w.reported = true;
                }
                ok = false;
            }
        }
        return ok;
    }
}
