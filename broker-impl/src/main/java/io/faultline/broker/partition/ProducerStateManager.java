package io.faultline.broker.partition;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;

/**
 * Idempotent and transactional producer state of one partition: for each producer id, its epoch, the metadata of
 * its last five batches (Kafka's window: a producer has at most five batches in flight per partition, so a retry is
 * always one of them) and the first offset of its open transaction; plus the index of aborted transactions that
 * read_committed fetches need. Rebuilt from the last snapshot and the log after it when the partition is loaded
 * or truncated, so it matches the log after a restart or a truncation.
 *
 * <p>Not thread-safe: the owning {@link Partition} serializes access under its append lock.
 */
public final class ProducerStateManager {
    public static final int MAX_CACHED_BATCHES = 5;

    /** What we remember about an appended batch. */
    public record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset, long maxTimestamp) {
    }

    /** An aborted transaction of the index: its producer, first data offset and the offset of its ABORT marker. */
    public record AbortedTxn(long producerId, long firstOffset, long lastOffset) {
    }

    private static final class ProducerEntry {
        short epoch;
        /** First offset of the open transaction, -1 when none. */
        long txnFirstOffset = -1;
        final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>(MAX_CACHED_BATCHES);

        ProducerEntry(short epoch) {
            this.epoch = epoch;
        }
    }

    private final Map<Long, ProducerEntry> producers = new HashMap<>();
    /** Whether a marker's epoch becomes the producer's (false only with the seeded bug zombie-not-fenced). */
    private final boolean markersSetEpoch;
    /** Open transactions by first offset (the earliest bounds the last stable offset). */
    private final java.util.TreeMap<Long, Long> ongoing = new java.util.TreeMap<>();
    /** The aborted-transaction index, in marker order (rebuilt from snapshot + log, so it survives restarts). */
    private final java.util.ArrayList<AbortedTxn> aborted = new java.util.ArrayList<>();

    public ProducerStateManager() {
        this(true);
    }

    /**
     * @param markersSetEpoch whether a COMMIT/ABORT marker's epoch becomes the producer's current one, as in Kafka:
     *                        a coordinator fencing a producer writes its abort marker with a bumped epoch, which is
     *                        what refuses the fenced instance's later batches here
     */
    public ProducerStateManager(boolean markersSetEpoch) {
        this.markersSetEpoch = markersSetEpoch;
    }

    /**
     * Checks a batch before it is appended.
     *
     * @return the original batch if this one is a retry of a batch already in the log
     * @throws InvalidProducerEpochException if the epoch is older than the producer's current one (fenced)
     * @throws OutOfOrderSequenceException   if the sequence does not continue the producer's last batch
     */
    public Optional<BatchMetadata> check(long producerId, short epoch, int firstSeq, int lastSeq) {
        return check(producerId, epoch, firstSeq, lastSeq, false);
    }

    /**
     * As {@link #check(long, short, int, int)}. {@code stateComplete}: the log still holds every batch ever appended to
     * it (it starts at offset 0 and was never compacted), so a producer this state does not know has never written
     * here, and its first batch must be its sequence 0. Kafka accepts any sequence from an unknown producer, since its
     * state may have gone with the records it described (retention, DeleteRecords); where nothing went, that only lets
     * a producer's second batch in before its first: a new producer pipelines batches 0 and 1, batch 0 meets a deposed
     * leader, batch 1 reaches the new one first and is appended; batch 0's retry is then out of sequence, and the
     * client's recovery (a new epoch, its unacknowledged batches numbered again from 0) writes batch 1 a second time.
     * Refused with OUT_OF_ORDER_SEQUENCE_NUMBER instead, the client retries batch 1 after batch 0, in order.
     */
    public Optional<BatchMetadata> check(long producerId, short epoch, int firstSeq, int lastSeq, boolean stateComplete) {
        ProducerEntry e = producers.get(producerId);
        if (e == null) {
            if (stateComplete && firstSeq != 0) {
                throw new OutOfOrderSequenceException("producer " + producerId + " has written nothing here: its first"
                        + " batch must start at sequence 0, got " + firstSeq);
            }
            return Optional.empty(); // a new producer, or one whose state went with its records: any sequence
        }
        if (epoch < e.epoch) {
            throw new InvalidProducerEpochException("producer " + producerId + " epoch " + epoch
                    + " is older than current epoch " + e.epoch);
        }
        if (epoch > e.epoch) {
            if (firstSeq != 0) {
                throw new OutOfOrderSequenceException("producer " + producerId + " new epoch " + epoch
                        + " must start at sequence 0, got " + firstSeq);
            }
            return Optional.empty();
        }
        for (BatchMetadata b : e.batches) {
            if (b.firstSeq() == firstSeq && b.lastSeq() == lastSeq) return Optional.of(b);
        }
        int last = e.batches.isEmpty() ? -1 : e.batches.peekLast().lastSeq();
        if (!e.batches.isEmpty() && !inSequence(last, firstSeq)) {
            throw new OutOfOrderSequenceException("producer " + producerId + " epoch " + epoch + ": sequence "
                    + firstSeq + " does not follow " + last);
        }
        return Optional.empty();
    }

    /**
     * Records an appended data batch (also used when rebuilding from the log). A transactional batch of a producer
     * with no open transaction opens one at its first offset; a batch without a sequence (a transactional offset
     * commit the broker wrote) only moves the epoch.
     */
    public void update(long producerId, short epoch, BatchMetadata batch, boolean transactional) {
        ProducerEntry e = entry(producerId, epoch);
        if (batch.firstSeq() >= 0) {
            if (e.batches.size() == MAX_CACHED_BATCHES) e.batches.removeFirst();
            e.batches.addLast(batch);
        }
        if (transactional && e.txnFirstOffset < 0) {
            e.txnFirstOffset = batch.firstOffset();
            ongoing.put(batch.firstOffset(), producerId);
        }
    }

    /** As {@link #update(long, short, BatchMetadata, boolean)} for a non-transactional batch. */
    public void update(long producerId, short epoch, BatchMetadata batch) {
        update(producerId, epoch, batch, false);
    }

    private ProducerEntry entry(long producerId, short epoch) {
        ProducerEntry e = producers.computeIfAbsent(producerId, id -> new ProducerEntry(epoch));
        if (epoch != e.epoch) {
            e.epoch = epoch;
            e.batches.clear();
        }
        return e;
    }

    /**
     * Checks a COMMIT/ABORT marker before it is appended: the coordinator writes it with the producer's current
     * epoch or a bumped one (when it fences the producer), never an older one.
     */
    public void checkMarker(long producerId, short epoch) {
        ProducerEntry e = producers.get(producerId);
        if (e != null && epoch < e.epoch) {
            throw new InvalidProducerEpochException("marker for producer " + producerId + " epoch " + epoch
                    + " is older than current epoch " + e.epoch);
        }
    }

    /**
     * Records an appended COMMIT/ABORT marker at {@code markerOffset}: the producer's open transaction (if any) ends
     * there, and an aborted one enters the aborted-transaction index. A marker with no open transaction (a partition
     * the producer never wrote to) changes nothing but the epoch.
     */
    public void endTransaction(long producerId, short epoch, long markerOffset, boolean commit) {
        ProducerEntry e = markersSetEpoch ? entry(producerId, epoch) : producers.get(producerId);
        if (e == null || e.txnFirstOffset < 0) return;
        ongoing.remove(e.txnFirstOffset);
        if (!commit) aborted.add(new AbortedTxn(producerId, e.txnFirstOffset, markerOffset));
        e.txnFirstOffset = -1;
    }

    /** The first offset of the earliest open transaction; the last stable offset cannot pass it. */
    public java.util.OptionalLong firstUnstableOffset() {
        return ongoing.isEmpty() ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(ongoing.firstKey());
    }

    /** Whether the producer has a transaction open at exactly this epoch. */
    public boolean hasOngoingTransaction(long producerId, short epoch) {
        ProducerEntry e = producers.get(producerId);
        return e != null && e.epoch == epoch && e.txnFirstOffset >= 0;
    }

    /** Open transactions: producer id → first offset. */
    public Map<Long, Long> openTransactions() {
        Map<Long, Long> out = new HashMap<>();
        ongoing.forEach((first, pid) -> out.put(pid, first));
        return out;
    }

    /**
     * The aborted transactions a read of [{@code fetchOffset}, {@code upperBound}) must know about: those that end
     * at or after the fetch offset and began before the upper bound (as Kafka's collectAbortedTransactions).
     */
    public java.util.List<AbortedTxn> abortedTransactions(long fetchOffset, long upperBound) {
        java.util.List<AbortedTxn> out = new java.util.ArrayList<>();
        for (AbortedTxn a : aborted) {
            if (a.lastOffset() >= fetchOffset && a.firstOffset() < upperBound) out.add(a);
        }
        return out;
    }

    /** Drops index entries that end below the log start offset (their records are gone). */
    public void pruneAbortedBelow(long logStartOffset) {
        aborted.removeIf(a -> a.lastOffset() < logStartOffset);
    }

    /** One producer's state, as snapshots store it ({@code txnFirstOffset} -1: no open transaction). */
    public record ProducerSnapshot(long producerId, short epoch, long txnFirstOffset,
                                   java.util.List<BatchMetadata> batches) {
    }

    /** The whole state of a partition, as snapshots store it. */
    public record StateSnapshot(java.util.List<ProducerSnapshot> producers, java.util.List<AbortedTxn> aborted) {
    }

    /** A copy of the current state. */
    public StateSnapshot snapshot() {
        java.util.List<ProducerSnapshot> out = new java.util.ArrayList<>(producers.size());
        producers.forEach((pid, e) -> out.add(new ProducerSnapshot(pid, e.epoch, e.txnFirstOffset,
                java.util.List.copyOf(e.batches))));
        return new StateSnapshot(out, java.util.List.copyOf(aborted));
    }

    /** Replaces the state with a snapshot's. */
    public void restore(StateSnapshot state) {
        clear();
        for (ProducerSnapshot s : state.producers()) {
            ProducerEntry e = new ProducerEntry(s.epoch());
            e.batches.addAll(s.batches());
            e.txnFirstOffset = s.txnFirstOffset();
            if (e.txnFirstOffset >= 0) ongoing.put(e.txnFirstOffset, s.producerId());
            producers.put(s.producerId(), e);
        }
        aborted.addAll(state.aborted());
    }

    /** Forgets everything (before a rebuild after truncation). */
    public void clear() {
        producers.clear();
        ongoing.clear();
        aborted.clear();
    }

    /** A producer as DescribeProducers reports it (last sequence and timestamp -1 when it has no batch here). */
    public record ActiveProducer(long producerId, short epoch, int lastSequence, long lastTimestamp,
                                 long txnFirstOffset) {
    }

    public java.util.List<ActiveProducer> activeProducers() {
        java.util.List<ActiveProducer> out = new java.util.ArrayList<>(producers.size());
        producers.forEach((pid, e) -> {
            BatchMetadata last = e.batches.peekLast();
            out.add(new ActiveProducer(pid, e.epoch, last == null ? -1 : last.lastSeq(),
                    last == null ? -1 : last.maxTimestamp(), e.txnFirstOffset));
        });
        return out;
    }

    public int producerCount() {
        return producers.size();
    }

    private static boolean inSequence(int lastSeq, int nextSeq) {
        return nextSeq == lastSeq + 1 || (lastSeq == Integer.MAX_VALUE && nextSeq == 0);
    }
}
