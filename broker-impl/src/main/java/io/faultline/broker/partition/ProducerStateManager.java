package io.faultline.broker.partition;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;

/**
 * Idempotent-producer state of one partition: for each producer id, its epoch and the metadata of its last five
 * batches (Kafka's window: a producer has at most five batches in flight per partition, so a retry is always one
 * of them). Rebuilt from the log when the partition is loaded.
 *
 * <p>Not thread-safe: the owning {@link Partition} serializes access under its append lock.
 */
public final class ProducerStateManager {
    public static final int MAX_CACHED_BATCHES = 5;

    /** What we remember about an appended batch. */
    public record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset, long maxTimestamp) {
    }

    private static final class ProducerEntry {
        short epoch;
        final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>(MAX_CACHED_BATCHES);

        ProducerEntry(short epoch) {
            this.epoch = epoch;
        }
    }

    private final Map<Long, ProducerEntry> producers = new HashMap<>();

    /**
     * Checks a batch before it is appended.
     *
     * @return the original batch if this one is a retry of a batch already in the log
     * @throws InvalidProducerEpochException if the epoch is older than the producer's current one (fenced)
     * @throws OutOfOrderSequenceException   if the sequence does not continue the producer's last batch
     */
    public Optional<BatchMetadata> check(long producerId, short epoch, int firstSeq, int lastSeq) {
        ProducerEntry e = producers.get(producerId);
        if (e == null) return Optional.empty(); // unknown producer (new, or its state was removed): any sequence
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

    /** Records an appended batch (also used when rebuilding from the log). */
    public void update(long producerId, short epoch, BatchMetadata batch) {
        ProducerEntry e = producers.computeIfAbsent(producerId, id -> new ProducerEntry(epoch));
        if (epoch != e.epoch) {
            e.epoch = epoch;
            e.batches.clear();
        }
        if (e.batches.size() == MAX_CACHED_BATCHES) e.batches.removeFirst();
        e.batches.addLast(batch);
    }

    /** One producer's state, as snapshots store it. */
    public record ProducerSnapshot(long producerId, short epoch, java.util.List<BatchMetadata> batches) {
    }

    /** A copy of the current state. */
    public java.util.List<ProducerSnapshot> snapshot() {
        java.util.List<ProducerSnapshot> out = new java.util.ArrayList<>(producers.size());
        producers.forEach((pid, e) -> out.add(new ProducerSnapshot(pid, e.epoch, java.util.List.copyOf(e.batches))));
        return out;
    }

    /** Replaces the state with a snapshot's. */
    public void restore(java.util.List<ProducerSnapshot> entries) {
        producers.clear();
        for (ProducerSnapshot s : entries) {
            for (BatchMetadata b : s.batches()) update(s.producerId(), s.epoch(), b);
        }
    }

    /** Forgets everything (before a rebuild after truncation). */
    public void clear() {
        producers.clear();
    }

    public int producerCount() {
        return producers.size();
    }

    private static boolean inSequence(int lastSeq, int nextSeq) {
        return nextSeq == lastSeq + 1 || (lastSeq == Integer.MAX_VALUE && nextSeq == 0);
    }
}
