package io.faultline.broker.replication;

import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Sends a leader's ISR change to the controller (AlterPartition) and reports the outcome. The leader acts on a
 * change only when {@link Result.Committed} comes back (or committed metadata carries it).
 */
public interface IsrChangeSender {
    /** The ISR {@code leaderId} wants, based on the partition epoch it last saw committed. */
    record Proposal(TopicPartition tp, Uuid topicId, int leaderId, int leaderEpoch, Set<Integer> newIsr,
                    int partitionEpoch) {
        public Proposal {
            newIsr = Set.copyOf(newIsr);
        }
    }

    sealed interface Result permits Result.Committed, Result.Rejected {
        /** The controller committed this ISR at this partition epoch. */
        record Committed(Set<Integer> isr, int leaderEpoch, int partitionEpoch) implements Result {
            public Committed {
                isr = Set.copyOf(isr);
            }
        }

        /** Not committed: INELIGIBLE_REPLICA, FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, a network error... */
        record Rejected(Errors error) implements Result {
        }
    }

    /** Sends {@code proposal}; {@code onResult} runs once, on any thread (possibly before this returns). */
    void submit(Proposal proposal, Consumer<Result> onResult);
}
