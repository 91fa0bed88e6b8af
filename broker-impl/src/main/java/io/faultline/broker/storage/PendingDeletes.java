package io.faultline.broker.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Segments retention has renamed to {@code .deleted}, each waiting for file.delete.delay.ms before its files go (a
 * reader that found the segment just before may still be sending from it). Guarded by its log's writer lock.
 */
final class PendingDeletes {
    private record Pending(LogSegment segment, long deleteAtMs) {
    }

    private final List<Pending> pending = new ArrayList<>();

    void add(LogSegment segment, long deleteAtMs) {
        pending.add(new Pending(segment, deleteAtMs));
    }

    /** Deletes the files of every segment due at {@code nowMs} (Long.MAX_VALUE: all of them). */
    void removeDue(long nowMs) throws IOException {
        for (var it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (nowMs >= p.deleteAtMs()) {
                p.segment().deleteFiles();
                it.remove();
            }
        }
    }

    /** Closes the file handles of every waiting segment (the log is closing; the files stay until deleted). */
    void closeHandlers() {
        for (Pending p : pending) p.segment().closeHandlers();
    }
}
