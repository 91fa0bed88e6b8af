package io.faultline.broker.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader epoch → start offset, with the semantics of Kafka's LeaderEpochFileCache, persisted in
 * {@code leader-epoch-checkpoint} ("0", count, "epoch startOffset" lines). Each change is persisted first and then
 * switched in memory, so a crash leaves the file at the old or new state.
 *
 * <p>Invariant: epochs and start offsets both strictly increase.
 *
 * <p>Thread-safety: all methods synchronized; one writer is expected (the partition's), readers may call the
 * query methods from any thread.
 */
public final class LeaderEpochCache {
    private static final Logger log = LoggerFactory.getLogger(LeaderEpochCache.class);

    /** One entry: leader epoch and the first offset written in it. */
    public record EpochEntry(int epoch, long startOffset) {
    }

    private final CheckpointFile<EpochEntry> checkpoint;
    private NavigableMap<Integer, EpochEntry> epochs = new TreeMap<>();

    /** Loads the checkpoint in {@code dir}; a malformed file is logged and treated as empty (recovery refills it). */
    LeaderEpochCache(Path dir) {
        this.checkpoint = new CheckpointFile<>(dir.resolve(LogFileNames.LEADER_EPOCH_CHECKPOINT),
                e -> e.epoch() + " " + e.startOffset(),
                f -> new EpochEntry(Integer.parseInt(f[0]), Long.parseLong(f[1])));
        try {
            TreeMap<Integer, EpochEntry> loaded = new TreeMap<>();
            long prevOffset = -1;
            for (EpochEntry e : checkpoint.read()) {
                if (e.epoch() < 0 || e.startOffset() < 0 || e.startOffset() < prevOffset
                        || (!loaded.isEmpty() && e.epoch() <= loaded.lastKey())) {
                    throw new IOException("non-monotonic entry " + e);
                }
                loaded.put(e.epoch(), e);
                prevOffset = e.startOffset();
            }
            epochs = loaded;
        } catch (IOException e) {
            log.warn("Ignoring unreadable {}: {}; it is rebuilt from the log", checkpoint.file(), e.getMessage());
        }
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset}. A no-op if it is already the latest epoch with a
     * start offset at or before; entries with an epoch &gt;= epoch or a start offset &gt;= startOffset are removed
     * first (they cannot both be true in a consistent log), as Kafka does.
     */
    public synchronized void assign(int epoch, long startOffset) {
        if (epoch < 0 || startOffset < 0) return;
        Map.Entry<Integer, EpochEntry> latest = epochs.lastEntry();
        if (latest != null && latest.getKey() == epoch && latest.getValue().startOffset() <= startOffset) return;
        TreeMap<Integer, EpochEntry> next = new TreeMap<>(epochs);
        List<EpochEntry> removed = new ArrayList<>();
        next.values().removeIf(e -> {
            boolean drop = e.epoch() >= epoch || e.startOffset() >= startOffset;
            if (drop) removed.add(e);
            return drop;
        });
        next.put(epoch, new EpochEntry(epoch, startOffset));
        if (!removed.isEmpty()) log.info("Epoch {} at {} replaced entries {}", epoch, startOffset, removed);
        persistAndSwitch(next);
    }

    /**
     * Why a leadership in {@code leaderEpoch} is stale, or null when it is not: the log already holds a later epoch.
     * The controller only ever raises a partition's epoch, so a later epoch in the log means a later leader existed;
     * it happens when a restarted broker replays old leadership records from the metadata log before it reaches the
     * current one. Assigning such an epoch would drop every newer epoch's entry (an assign removes the entries at or
     * above its epoch), and followers asking about those epochs would be sent back to an offset they can never get
     * past (seen: a follower truncating from 117 to 110 two thousand times). The log refuses it: starting such a
     * leadership is an IllegalStateException (the metadata thread skips a stale change), a leader append in it is
     * answered NOT_LEADER_OR_FOLLOWER, as a deposed leader's clients are.
     */
    public synchronized String staleLeadership(org.apache.kafka.common.TopicPartition tp, int leaderEpoch, String what) {
        int latest = epochs.isEmpty() ? -1 : epochs.lastKey();
        if (leaderEpoch >= latest) return null;
        return tp + ": cannot " + what + " in epoch " + leaderEpoch + ": the log already holds epoch " + latest
                + " (a stale leadership)";
    }

    public synchronized Optional<Integer> latestEpoch() {
        return epochs.isEmpty() ? Optional.empty() : Optional.of(epochs.lastKey());
    }

    public synchronized Optional<EpochEntry> latestEntry() {
        return epochs.isEmpty() ? Optional.empty() : Optional.of(epochs.lastEntry().getValue());
    }

    /** Epoch of the batch holding {@code offset} according to the cache, if any entry starts at or before it. */
    public synchronized Optional<Integer> epochForOffset(long offset) {
        Integer found = null;
        for (EpochEntry e : epochs.values()) {
            if (e.startOffset() <= offset) found = e.epoch();
            else break;
        }
        return Optional.ofNullable(found);
    }

    /**
     * Kafka's endOffsetFor: for the latest epoch the log end offset; otherwise the largest known epoch &lt;= the
     * requested one and the start offset of the first epoch after the requested one (KIP-279); if the requested
     * epoch is below every known epoch, (requested, start of the first epoch); if newer than all, UNDEFINED.
     */
    public synchronized EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        if (requestedEpoch == EpochEndOffset.UNDEFINED_EPOCH || epochs.isEmpty()) return EpochEndOffset.UNDEFINED;
        if (epochs.lastKey() == requestedEpoch) return new EpochEndOffset(requestedEpoch, logEndOffset);
        Map.Entry<Integer, EpochEntry> higher = epochs.higherEntry(requestedEpoch);
        if (higher == null) return EpochEndOffset.UNDEFINED;
        Map.Entry<Integer, EpochEntry> floor = epochs.floorEntry(requestedEpoch);
        if (floor == null) return new EpochEndOffset(requestedEpoch, higher.getValue().startOffset());
        return new EpochEndOffset(floor.getKey(), higher.getValue().startOffset());
    }

    /** Removes entries starting at or after {@code endOffset} (log truncated to endOffset). */
    public synchronized void truncateFromEnd(long endOffset) {
        if (endOffset < 0 || epochs.isEmpty() || epochs.lastEntry().getValue().startOffset() < endOffset) return;
        TreeMap<Integer, EpochEntry> next = new TreeMap<>(epochs);
        next.values().removeIf(e -> e.startOffset() >= endOffset);
        persistAndSwitch(next);
    }

    /**
     * Log start moved to {@code startOffset}: entries starting at or before it collapse into one entry, the
     * latest of them, moved to startOffset.
     */
    public synchronized void truncateFromStart(long startOffset) {
        if (epochs.isEmpty()) return;
        TreeMap<Integer, EpochEntry> next = new TreeMap<>(epochs);
        EpochEntry lastRemoved = null;
        for (var it = next.values().iterator(); it.hasNext(); ) {
            EpochEntry e = it.next();
            if (e.startOffset() <= startOffset) {
                lastRemoved = e;
                it.remove();
            } else {
                break;
            }
        }
        if (lastRemoved == null) return;
        if (lastRemoved.startOffset() == startOffset && next.size() == epochs.size() - 1) {
            // only the entry already at startOffset matched: nothing changes
            return;
        }
        next.put(lastRemoved.epoch(), new EpochEntry(lastRemoved.epoch(), startOffset));
        persistAndSwitch(next);
    }

    public synchronized void clear() {
        persistAndSwitch(new TreeMap<>());
    }

    public synchronized List<EpochEntry> entries() {
        return List.copyOf(epochs.values());
    }

    private void persistAndSwitch(TreeMap<Integer, EpochEntry> next) {
        try {
            checkpoint.write(List.copyOf(next.values()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + checkpoint.file(), e);
        }
        epochs = next;
    }
}
