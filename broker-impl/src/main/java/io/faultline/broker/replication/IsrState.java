package io.faultline.broker.replication;

import java.util.HashSet;
import java.util.Set;

/**
 * The leader's view of the in-sync replicas: the last committed ISR, possibly with one change proposed to the
 * controller and not yet committed. While a change is pending the high watermark uses the maximal ISR (old ∪
 * new), so neither an expand nor a shrink can make it advance before the controller agrees (Kafka's
 * PendingPartitionChange).
 */
public sealed interface IsrState permits IsrState.Committed, IsrState.PendingExpand, IsrState.PendingShrink {
    /** The committed ISR (what acks=all checks before an append). */
    Set<Integer> isr();

    int partitionEpoch();

    /** The ISR used for the high watermark and NOT_ENOUGH_REPLICAS_AFTER_APPEND. */
    Set<Integer> maximalIsr();

    Committed lastCommitted();

    default boolean isPending() {
        return !(this instanceof Committed);
    }

    record Committed(Set<Integer> isr, int partitionEpoch) implements IsrState {
        public Committed {
            isr = Set.copyOf(isr);
            if (isr.isEmpty()) throw new IllegalArgumentException("a leader's ISR contains at least the leader");
        }

        @Override
        public Set<Integer> maximalIsr() {
            return isr;
        }

        @Override
        public Committed lastCommitted() {
            return this;
        }
    }

    /** {@code replica} proposed to join; until committed it already counts for the high watermark. */
    record PendingExpand(Committed lastCommitted, int replica) implements IsrState {
        public PendingExpand {
            if (lastCommitted.isr().contains(replica)) throw new IllegalArgumentException(replica + " already in ISR");
        }

        @Override
        public Set<Integer> isr() {
            return lastCommitted.isr();
        }

        @Override
        public int partitionEpoch() {
            return lastCommitted.partitionEpoch();
        }

        @Override
        public Set<Integer> maximalIsr() {
            Set<Integer> s = new HashSet<>(lastCommitted.isr());
            s.add(replica);
            return Set.copyOf(s);
        }

        public Set<Integer> proposedIsr() {
            return maximalIsr();
        }
    }

    /** {@code removed} proposed to leave; until committed they still hold the high watermark back. */
    record PendingShrink(Committed lastCommitted, Set<Integer> removed) implements IsrState {
        public PendingShrink {
            removed = Set.copyOf(removed);
            if (removed.isEmpty() || !lastCommitted.isr().containsAll(removed)) {
                throw new IllegalArgumentException("cannot shrink " + lastCommitted.isr() + " by " + removed);
            }
        }

        @Override
        public Set<Integer> isr() {
            return lastCommitted.isr();
        }

        @Override
        public int partitionEpoch() {
            return lastCommitted.partitionEpoch();
        }

        @Override
        public Set<Integer> maximalIsr() {
            return lastCommitted.isr();
        }

        public Set<Integer> proposedIsr() {
            Set<Integer> s = new HashSet<>(lastCommitted.isr());
            s.removeAll(removed);
            return Set.copyOf(s);
        }
    }
}
