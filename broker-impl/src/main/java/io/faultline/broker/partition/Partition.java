package io.faultline.broker.partition;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;

import io.faultline.broker.storage.LogAppendInfo;
import io.faultline.broker.storage.LogReadResult;
import io.faultline.broker.storage.PartitionLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * One partition hosted by this node: its log, its role ({@link PartitionRole}), its idempotent-producer state and
 * its high watermark. This class is the single owner of role transitions and high-watermark moves; appends are
 * serialized by {@link #appendLock} so the producer-state check and the append are atomic.
 */
public final class Partition {
    /** The answer to an append. */
    public record AppendResult(long firstOffset, long lastOffset, long logAppendTime, long logStartOffset,
                               boolean duplicate) {
    }

    private final TopicPartition tp;
    private final Uuid topicId;
    private final PartitionLog log;
    private final int localNodeId;
    private final Consumer<TopicPartition> wakeWaiters;
    private final ProducerStateManager producers;
    private final Object appendLock = new Object();
    private final ProducerStateSnapshots snapshots;
    private final SeededBugs bugs;
    /** Producer state changed since the last snapshot (guarded by appendLock). */
    private boolean producerStateDirty;
    /** Counts reloads of the producer state (truncations): a snapshot taken before one must not be installed. */
    private long producerStateGeneration;
    /** Test hook: runs between writing a snapshot file and installing it. */
    private Runnable beforeSnapshotInstall = () -> { };
    private volatile PartitionRole role;
    /**
     * Seeded bug fenced-leader-serves: the leader epoch this node led in before metadata made it a follower, and
     * still serves produce and consumer fetches in; -1 otherwise (always without the bug).
     */
    private volatile int zombieEpoch = -1;
    private volatile int followerReadsLoggedEpoch = -1;
    private static final org.slf4j.Logger FOLLOWER_READS = org.slf4j.LoggerFactory.getLogger(Partition.class);
    /** First offset of the earliest open transaction, -1 when none (written under appendLock). */
    private volatile long firstUnstableOffset = -1;
    /** Set when replication owns the high watermark: runs after each leader append instead of the single-node rule. */
    private volatile Runnable replicatedAfterAppend;

    Partition(TopicPartition tp, Uuid topicId, PartitionLog log, int localNodeId,
              Consumer<TopicPartition> wakeWaiters) {
        this(tp, topicId, log, localNodeId, wakeWaiters, null, SeededBugs.NONE);
    }

    Partition(TopicPartition tp, Uuid topicId, PartitionLog log, int localNodeId,
              Consumer<TopicPartition> wakeWaiters, ProducerStateSnapshots snapshots) {
        this(tp, topicId, log, localNodeId, wakeWaiters, snapshots, SeededBugs.NONE);
    }

    Partition(TopicPartition tp, Uuid topicId, PartitionLog log, int localNodeId,
              Consumer<TopicPartition> wakeWaiters, ProducerStateSnapshots snapshots, SeededBugs bugs) {
        this.bugs = bugs;
        // Seeded bug zombie-not-fenced: a marker's (bumped) epoch is not recorded, so it fences nobody.
        this.producers = new ProducerStateManager(!bugs.on(SeededBug.ZOMBIE_NOT_FENCED));
        this.tp = tp;
        this.topicId = topicId;
        this.log = log;
        this.localNodeId = localNodeId;
        this.wakeWaiters = wakeWaiters;
        this.snapshots = snapshots;
        loadProducerState();
    }

    public TopicPartition topicPartition() {
        return tp;
    }

    public Uuid topicId() {
        return topicId;
    }

    public PartitionLog log() {
        return log;
    }

    public PartitionRole role() {
        return role;
    }

    /** The leader epoch of this replica's role, or -1 while it has none (opened, its role not yet applied). */
    public int leaderEpoch() {
        PartitionRole r = role;
        return r == null ? -1 : r.leaderEpoch();
    }

    public boolean isLeader() {
        return role instanceof PartitionRole.Leader;
    }

    /** Leads, or (seeded bug fenced-leader-serves) still acts as the leader it was. */
    public boolean servesAsLeader() {
        return isLeader() || zombieEpoch >= 0;
    }

    /** Becomes the only replica's leader at {@code epoch} (single-replica shorthand, used by tests). */
    public void makeLeader(int epoch, Set<Integer> isr) {
        makeLeader(epoch, 0, isr.stream().sorted().toList(), isr);
    }

    /**
     * Becomes leader at {@code epoch} with the committed replicas and ISR. With this node as the only in-sync
     * replica everything in the log is committed, so the high watermark moves to the log end offset.
     */
    public void makeLeader(int epoch, int partitionEpoch, List<Integer> replicas, Set<Integer> isr) {
        synchronized (appendLock) {
            requireNotStale(epoch, partitionEpoch);
            role = new PartitionRole.Leader(epoch, partitionEpoch, replicas, isr);
            zombieEpoch = -1;
            maybeIncrementHighWatermark();
        }
        wakeWaiters.accept(tp); // a waiting fetch or produce re-checks under the new role (and the new HW)
    }

    public void makeFollower(int epoch, int leaderId) {
        makeFollower(epoch, 0, leaderId, List.of(localNodeId), Set.of(localNodeId));
    }

    /**
     * Becomes a follower of {@code leaderId} (-1: no leader) at {@code epoch}: leader appends and consumer reads are
     * refused from now on and waiting operations are woken so they can answer NOT_LEADER_OR_FOLLOWER.
     */
    public void makeFollower(int epoch, int partitionEpoch, int leaderId, List<Integer> replicas, Set<Integer> isr) {
        synchronized (appendLock) {
            requireNotStale(epoch, partitionEpoch);
            if (role instanceof PartitionRole.Leader old && bugs.on(SeededBug.FENCED_LEADER_SERVES)) {
                zombieEpoch = old.leaderEpoch();
            }
            role = new PartitionRole.Follower(epoch, partitionEpoch, leaderId, replicas, isr);
        }
        wakeWaiters.accept(tp);
    }

    /** Epochs only move forward; at the same leader epoch, partition epochs do too (ISR changes). */
    private void requireNotStale(int epoch, int partitionEpoch) {
        PartitionRole current = role;
        if (current == null) return;
        requireEpochNotOlder(epoch);
        if (epoch == current.leaderEpoch() && partitionEpoch < current.partitionEpoch()) {
            throw new IllegalStateException(tp + ": partition epoch " + partitionEpoch + " is older than "
                    + current.partitionEpoch());
        }
    }

    /** Leader epochs only move forward; an older one means a stale controller decision. */
    private void requireEpochNotOlder(int epoch) {
        PartitionRole current = role;
        if (current != null && epoch < current.leaderEpoch()) {
            throw new IllegalStateException(tp + ": epoch " + epoch + " is older than " + current.leaderEpoch());
        }
    }

    /**
     * Leader append: validates magic, CRC and producer sequences, appends, advances the high watermark when the
     * ISR allows. A retried batch already in the log is answered with its original offsets.
     */
    public AppendResult appendAsLeader(MemoryRecords records) {
        List<Runnable> completions = new java.util.ArrayList<>(1);
        AppendResult result = appendAsLeader(records, completions::add);
        completions.forEach(Runnable::run);
        return result;
    }

    /**
     * As {@link #appendAsLeader(MemoryRecords)}, for a caller that holds a lock of its own around the append: the
     * high-watermark move and the completion of waiting operations it triggers are handed to {@code deferred}, to
     * run once the caller has released every lock. A delayed operation completes under its own lock and its answer
     * may take the caller's lock (an OffsetFetch reads the offsets store), so completing it under that lock
     * deadlocks — Kafka's rule: never complete delayed operations while holding a partition or store lock.
     */
    public AppendResult appendAsLeader(MemoryRecords records, Consumer<Runnable> deferred) {
        return appendAsLeader(records, deferred, false);
    }

    /**
     * As {@link #appendAsLeader(MemoryRecords, Consumer)}; {@code fromCoordinator} for batches the broker writes
     * itself (transactional offset commits carry the producer's id and epoch, but their sequence is not checked).
     */
    public AppendResult appendAsLeader(MemoryRecords records, Consumer<Runnable> deferred, boolean fromCoordinator) {
        AppendResult result = appendLocked(records, fromCoordinator);
        // Waiting produce/fetch operations are completed outside the append lock, as Kafka does.
        if (!result.duplicate()) deferred.accept(this::afterLeaderAppend);
        return result;
    }

    private void afterLeaderAppend() {
        Runnable replicated = replicatedAfterAppend;
        if (replicated != null) replicated.run();
        wakeWaiters.accept(tp);
    }

    /** The leader epoch a leader append is stamped with; throws on a follower. */
    private int appendEpoch() {
        if (role instanceof PartitionRole.Leader leader) return leader.leaderEpoch();
        if (zombieEpoch >= 0) return zombieEpoch; // seeded bug fenced-leader-serves
        throw new NotLeaderOrFollowerException("node " + localNodeId + " is not the leader of " + tp);
    }

    private AppendResult appendLocked(MemoryRecords records, boolean fromCoordinator) {
        synchronized (appendLock) {
            int appendEpoch = appendEpoch();
            Map<Long, Integer> pendingLastSeq = new HashMap<>();
            // every batch ever appended is still in the log, so the producer state knows every producer that wrote
            boolean stateComplete = log.logStartOffset() == 0 && !log.config().compact();
            for (MutableRecordBatch batch : records.batches()) {
                if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
                    throw new InvalidRecordException("only magic v2 batches are accepted, got v" + batch.magic());
                }
                if (!batch.isValid()) throw new CorruptRecordException("batch CRC mismatch in " + tp);
                if (batch.isControlBatch()) {
                    // Only the transaction coordinator ends transactions (WriteTxnMarkers → appendMarker).
                    throw new InvalidRecordException("clients may not send control batches");
                }
                if (batch.isTransactional() && !batch.hasProducerId()) {
                    throw new InvalidRecordException("a transactional batch needs a producer id");
                }
                if (!batch.hasProducerId()) continue;
                if (fromCoordinator) {
                    producers.checkMarker(batch.producerId(), batch.producerEpoch()); // epoch only: no sequence
                    continue;
                }
                long pid = batch.producerId();
                Integer pending = pendingLastSeq.get(pid);
                if (pending != null) {
                    if (batch.baseSequence() != pending + 1) {
                        throw new OutOfOrderSequenceException("out of order batches for producer " + pid);
                    }
                } else {
                    Optional<ProducerStateManager.BatchMetadata> dup = producers.check(pid, batch.producerEpoch(),
                            batch.baseSequence(), batch.lastSequence(), stateComplete);
                    if (dup.isPresent()) {
                        ProducerStateManager.BatchMetadata d = dup.get();
                        return new AppendResult(d.firstOffset(), d.lastOffset(), -1, log.logStartOffset(), true);
                    }
                }
                pendingLastSeq.put(pid, batch.lastSequence());
            }
            LogAppendInfo info = log.appendAsLeader(records, appendEpoch, fromCoordinator);
            // The storage engine rewrote base offsets in place: record the producer state with real offsets.
            for (MutableRecordBatch batch : records.batches()) recordProducerBatch(batch);
            maybeIncrementHighWatermark();
            return new AppendResult(info.firstOffset(), info.lastOffset(), info.logAppendTime(),
                    info.logStartOffset(), false);
        }
    }

    /**
     * Appends a COMMIT or ABORT marker for {@code producerId} (WriteTxnMarkers, leader only): it ends the producer's
     * open transaction here, and an aborted one enters the aborted-transaction index. The high-watermark move and
     * the wake-up of waiting operations go to {@code deferred}, as for other leader appends.
     *
     * @throws org.apache.kafka.common.errors.InvalidProducerEpochException if the epoch is older than the producer's
     */
    public AppendResult appendMarker(long producerId, short producerEpoch, int coordinatorEpoch, boolean commit,
                                     long timestamp, Consumer<Runnable> deferred) {
        AppendResult result;
        synchronized (appendLock) {
            int appendEpoch = appendEpoch();
            producers.checkMarker(producerId, producerEpoch);
            MemoryRecords marker = MemoryRecords.withEndTransactionMarker(timestamp, producerId, producerEpoch,
                    new EndTransactionMarker(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
                            coordinatorEpoch));
            LogAppendInfo info = log.appendAsLeader(marker, appendEpoch, true);
            for (MutableRecordBatch batch : marker.batches()) recordProducerBatch(batch);
            maybeIncrementHighWatermark();
            result = new AppendResult(info.firstOffset(), info.lastOffset(), info.logAppendTime(),
                    info.logStartOffset(), false);
        }
        deferred.accept(this::afterLeaderAppend);
        return result;
    }

    /**
     * The last stable offset: the high watermark, or the first offset of the earliest open transaction if that is
     * lower. read_committed consumers read below it only.
     */
    public long lastStableOffset() {
        long hw = log.highWatermark();
        long unstable = firstUnstableOffset;
        // Seeded bug lso-ignores-open-txn: the open transactions are forgotten, read_committed reads to the HW.
        if (bugs.on(SeededBug.LSO_IGNORES_OPEN_TXN)) return hw;
        return unstable < 0 ? hw : Math.min(hw, unstable);
    }

    /** The aborted transactions a read_committed fetch of [{@code fetchOffset}, {@code upperBound}) must skip. */
    public List<ProducerStateManager.AbortedTxn> abortedTransactions(long fetchOffset, long upperBound) {
        synchronized (appendLock) {
            return producers.abortedTransactions(fetchOffset, upperBound);
        }
    }

    /** The producers this partition knows (DescribeProducers). */
    public List<ProducerStateManager.ActiveProducer> activeProducers() {
        synchronized (appendLock) {
            return producers.activeProducers();
        }
    }

    /**
     * Whether {@code producerId} has a transaction open here at exactly {@code epoch}: then the partition is already
     * in that transaction and a transaction-version-2 append need not ask the coordinator again.
     */
    public boolean hasOngoingTransaction(long producerId, short epoch) {
        synchronized (appendLock) {
            return producers.hasOngoingTransaction(producerId, epoch);
        }
    }

    /** Open transactions on this partition: producer id → first offset (DescribeProducers, tests). */
    public Map<Long, Long> openTransactions() {
        synchronized (appendLock) {
            return producers.openTransactions();
        }
    }

    /**
     * Hands the high watermark to replication: from now on {@code afterLeaderAppend} runs after every leader append
     * (outside the append lock) and this partition no longer moves the high watermark itself.
     */
    public void replicateWith(Runnable afterLeaderAppend) {
        this.replicatedAfterAppend = afterLeaderAppend;
    }

    /** Wakes operations waiting on this partition (replication calls it when the high watermark moved). */
    public void wakeWaiters() {
        wakeWaiters.accept(tp);
    }

    /**
     * Follower append: the leader's batches with their offsets and epochs. Their producer ids and sequences enter the
     * producer state as on the leader, so a producer's retry is still recognised as a duplicate after this replica
     * becomes leader.
     */
    public LogAppendInfo appendAsFollower(MemoryRecords records) {
        synchronized (appendLock) {
            if (role instanceof PartitionRole.Leader) {
                throw new NotLeaderOrFollowerException("node " + localNodeId + " leads " + tp + ": no follower appends");
            }
            LogAppendInfo info = log.appendAsFollower(records);
            // Seeded bug dedup-not-rebuilt: a follower that becomes leader knows none of these producers' sequences.
            if (!bugs.on(SeededBug.DEDUP_NOT_REBUILT)) for (MutableRecordBatch batch : records.batches()) recordProducerBatch(batch);
            return info;
        }
    }

    /**
     * Follower truncation (divergence or high-watermark mode); the producer state is rebuilt for the shorter log.
     * A cut at or past the log end removes no record but still goes to the log: it drops leader-epoch entries that
     * start there with no batch behind them (an epoch this node led without appending). Keeping them made a deposed
     * leader send that epoch as its last fetched one for ever and get the same diverging answer (issue 25, 2a).
     */
    public void truncateTo(long offset) {
        synchronized (appendLock) {
            boolean cutsRecords = offset < log.logEndOffset();
            log.truncateTo(offset);
            if (!cutsRecords) return;
            loadProducerState();
            producerStateDirty = true;
        }
    }

    /** Follower whose log is entirely below the leader's log start: restart empty at {@code offset}. */
    public void truncateFullyAndStartAt(long offset) {
        synchronized (appendLock) {
            log.truncateFullyAndStartAt(offset);
            loadProducerState();
            producerStateDirty = true;
        }
    }

    /**
     * Reads for a consumer (bounded by the high watermark) or a follower (bounded by the log end offset).
     *
     * @throws org.apache.kafka.common.errors.OffsetOutOfRangeException outside the log
     */
    public LogReadResult read(long fetchOffset, int maxBytes, boolean consumer, int currentLeaderEpoch) {
        return read(fetchOffset, maxBytes, consumer, currentLeaderEpoch, false);
    }

    /** As {@link #read(long, int, boolean, int)}; a read_committed consumer reads only below the last stable offset. */
    public LogReadResult read(long fetchOffset, int maxBytes, boolean consumer, int currentLeaderEpoch,
                              boolean readCommitted) {
        return log.read(fetchOffset, maxBytes, readBound(consumer, currentLeaderEpoch, readCommitted, false));
    }

    /**
     * As {@link #read(long, int, boolean, int, boolean)} for a Fetch response: batches below the high watermark
     * stay in the segment file and are sent from it ({@link PartitionLog#readForSend}). With {@code followerMayServe}
     * (a consumer's fetch from v11, KIP-392) a follower serves it too, up to its own high watermark.
     */
    public PartitionLog.SliceRead readForSend(long fetchOffset, int maxBytes, boolean consumer,
                                              int currentLeaderEpoch, boolean readCommitted, boolean followerMayServe) {
        return log.readForSend(fetchOffset, maxBytes, readBound(consumer, currentLeaderEpoch, readCommitted,
                followerMayServe));
    }

    /** Checks the leader epoch and role; returns the offset reads stop below. */
    private long readBound(boolean consumer, int currentLeaderEpoch, boolean readCommitted, boolean followerMayServe) {
        PartitionRole r = role;
        // Seeded bug fenced-leader-serves: a consumer still on the old epoch is served as if it were current.
        boolean zombie = !(r instanceof PartitionRole.Leader) && consumer && zombieEpoch >= 0;
        if (!zombie || currentLeaderEpoch != zombieEpoch) validateLeaderEpoch(currentLeaderEpoch, r);
        boolean follows = consumer && followerMayServe && r instanceof PartitionRole.Follower;
        if (!(r instanceof PartitionRole.Leader) && !zombie && !follows) {
            throw new NotLeaderOrFollowerException("node " + localNodeId + " is not the leader of " + tp);
        }
        if (follows && followerReadsLoggedEpoch != r.leaderEpoch()) {
            followerReadsLoggedEpoch = r.leaderEpoch(); // once per leadership: a line, not one per fetch
            FOLLOWER_READS.info("{}: serving consumer reads as a follower at leader epoch {} (high watermark {})", tp,
                    r.leaderEpoch(), log.highWatermark());
        }
        // Seeded bug read-past-hw: consumers see records no follower may have yet.
        boolean boundedByHw = consumer && !bugs.on(SeededBug.READ_PAST_HW);
        long bound = boundedByHw ? log.highWatermark() : Long.MAX_VALUE;
        if (consumer && readCommitted) bound = Math.min(bound, lastStableOffset());
        return bound;
    }

    /** Leader-only requests (ListOffsets, OffsetForLeaderEpoch) from clients are refused by followers. */
    public void requireLeader() {
        if (!servesAsLeader()) {
            throw new NotLeaderOrFollowerException("node " + localNodeId + " is not the leader of " + tp);
        }
    }

    /** The fencing check of KIP-320: requests carry the leader epoch the client believes in (-1 = unknown). */
    public void validateLeaderEpoch(int requestEpoch) {
        validateLeaderEpoch(requestEpoch, role);
    }

    private void validateLeaderEpoch(int requestEpoch, PartitionRole r) {
        if (requestEpoch < 0) return;
        // a partition is opened before the metadata gives it a role: requests in between are retried, as by a follower
        if (r == null) throw new NotLeaderOrFollowerException("node " + localNodeId + " has no role for " + tp + " yet");
        if (requestEpoch < r.leaderEpoch()) {
            throw new FencedLeaderEpochException("epoch " + requestEpoch + " is older than " + r.leaderEpoch());
        }
        if (requestEpoch > r.leaderEpoch()) {
            throw new UnknownLeaderEpochException("epoch " + requestEpoch + " is newer than " + r.leaderEpoch());
        }
    }

    public long highWatermark() {
        return log.highWatermark();
    }

    /**
     * Leader only: the high watermark is the smallest log end offset in the ISR (just ours on one node). Called
     * under the append lock; returns whether it moved, so the caller can wake waiters after releasing the lock.
     */
    private boolean maybeIncrementHighWatermark() {
        if (replicatedAfterAppend != null) return false; // the replication leader state owns it
        if (!(role instanceof PartitionRole.Leader leader)) return false;
        if (!leader.isr().equals(Set.of(localNodeId))) return false; // replication computes it from follower offsets
        long leo = log.logEndOffset();
        if (leo <= log.highWatermark()) return false;
        log.updateHighWatermark(leo);
        return true;
    }

    private void recordProducerBatch(RecordBatch batch) {
        if (!batch.hasProducerId()) return;
        producerStateDirty = true;
        if (batch.isControlBatch()) {
            ControlRecordType type = controlType(batch);
            if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                producers.endTransaction(batch.producerId(), batch.producerEpoch(), batch.baseOffset(),
                        type == ControlRecordType.COMMIT);
            }
        } else {
            producers.update(batch.producerId(), batch.producerEpoch(), new ProducerStateManager.BatchMetadata(
                    batch.baseSequence(), batch.lastSequence(), batch.baseOffset(), batch.lastOffset(),
                    batch.maxTimestamp()), batch.isTransactional());
        }
        firstUnstableOffset = producers.firstUnstableOffset().orElse(-1);
    }

    private static ControlRecordType controlType(RecordBatch batch) {
        for (org.apache.kafka.common.record.internal.Record r : batch) {
            return r.hasKey() ? ControlRecordType.parse(r.key()) : ControlRecordType.UNKNOWN;
        }
        return ControlRecordType.UNKNOWN;
    }

    /**
     * Writes a producer-state snapshot if the state changed since the last one. The state and the log end offset
     * it covers are taken together under the append lock; the file is written outside it and installed under it
     * only if the state was not reloaded in between. A truncation (then a regrown log) between taking the state and
     * installing the file would otherwise leave a snapshot of batches the log no longer holds, trusted at the next
     * load because its offset is not beyond the new log end: the rebuilt state would miss the batches written since
     * the cut, and a producer's retry of one of them would be appended twice.
     */
    void snapshotProducerStateIfChanged() {
        if (snapshots == null) return;
        ProducerStateManager.StateSnapshot state;
        long offset;
        long generation;
        synchronized (appendLock) {
            if (!producerStateDirty) return;
            producerStateDirty = false;
            producers.pruneAbortedBelow(log.logStartOffset());
            state = producers.snapshot();
            offset = log.logEndOffset();
            generation = producerStateGeneration;
        }
        java.nio.file.Path prepared = snapshots.prepare(tp, topicId, offset, state);
        if (prepared == null) return;
        beforeSnapshotInstall.run();
        synchronized (appendLock) {
            if (generation == producerStateGeneration) {
                snapshots.install(tp, prepared);
                return;
            }
        }
        snapshots.abandon(prepared); // the log was cut meanwhile: the state taken describes batches it lost
    }

    /** Test hook: {@code action} runs after a snapshot file is written and before it is installed. */
    void beforeSnapshotInstall(Runnable action) {
        this.beforeSnapshotInstall = action;
    }

    /** Producer state survives restarts: the last valid snapshot, then the log written after it. */
    private void loadProducerState() {
        producerStateGeneration++;
        producers.clear();
        long offset = log.logStartOffset();
        Optional<ProducerStateSnapshots.Snapshot> snap = snapshots == null ? Optional.empty()
                : snapshots.read(tp, topicId, log.logEndOffset());
        if (snap.isPresent()) {
            producers.restore(snap.get().state());
            offset = Math.max(offset, snap.get().offset());
        }
        replayProducerState(offset);
        // Seeded bug aborted-index-not-recovered: the aborted-transaction index is treated as live state only;
        // what the snapshot and the replayed log say about aborted transactions is dropped.
        if (bugs.on(SeededBug.ABORTED_INDEX_NOT_RECOVERED)) producers.pruneAbortedBelow(Long.MAX_VALUE);
        firstUnstableOffset = producers.firstUnstableOffset().orElse(-1);
    }

    /** Replays the batch headers of the log from {@code offset} into the producer state. */
    private void replayProducerState(long offset) {
        long end = log.logEndOffset();
        while (offset < end) {
            LogReadResult r = log.read(offset, 1 << 20, Long.MAX_VALUE);
            long next = r.nextOffset();
            for (MutableRecordBatch b : r.records().batches()) {
                if (b.lastOffset() >= offset) recordProducerBatch(b);
            }
            if (next <= offset) break;
            offset = next;
        }
    }

    @Override
    public String toString() {
        return tp + " (" + role + ")";
    }
}
