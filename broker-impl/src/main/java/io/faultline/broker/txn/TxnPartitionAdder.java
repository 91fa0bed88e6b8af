package io.faultline.broker.txn;

import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Transaction version 2's server-side add (KIP-890 part 2): a v2 producer sends no AddPartitionsToTxn, so the leader
 * of a partition that gets a transactional batch (Produce v12+), or the group coordinator that gets TxnOffsetCommit
 * v5+, asks the producer's transaction coordinator to add the partition before appending, as Kafka's
 * AddPartitionsToTxnManager does with AddPartitionsToTxn v5 (verifyOnly false). A partition whose log already has an
 * open transaction of this producer and epoch is not asked about again. The coordinator's answer also fences: a
 * producer whose epoch is older than the coordinator's (a zombie of an ended transaction) is refused.
 *
 * <p>The local coordinator is called directly, another node's with AddPartitionsToTxn v5 over the inter-broker
 * listener. {@code done} runs in the caller's thread when no partition needed asking, else on {@code continuation},
 * never inside the completion of a delayed operation:
 * the caller appends next, and appends complete delayed operations.
 */
public final class TxnPartitionAdder {
    /** Sends AddPartitionsToTxn v5 for one transaction to another node; completes with each partition's error. */
    public interface Remote {
        CompletableFuture<Map<TopicPartition, Errors>> add(int nodeId, String txnId, long producerId,
                                                           short producerEpoch, Set<TopicPartition> partitions);
    }

    private final int nodeId;
    private final TransactionCoordinator local;
    private final PartitionManager partitions;
    /** The node coordinating a transactional id now: empty when unknown (no topic, no leader). */
    private final Function<String, Optional<Integer>> coordinatorOf;
    private final Remote remote;
    private final Executor continuation;

    public TxnPartitionAdder(int nodeId, TransactionCoordinator local, PartitionManager partitions,
                             Function<String, Optional<Integer>> coordinatorOf, Remote remote, Executor continuation) {
        this.nodeId = nodeId;
        this.local = local;
        this.partitions = partitions;
        this.coordinatorOf = coordinatorOf;
        this.remote = remote;
        this.continuation = continuation;
    }

    /**
     * Makes sure every partition of {@code tps} is in the producer's transaction; {@code done} gets each partition's
     * error as the appending request should report it (Kafka's conversions: a fenced producer is
     * INVALID_PRODUCER_EPOCH, a coordinator that cannot answer now is the retriable NOT_ENOUGH_REPLICAS).
     */
    public void ensureAdded(String txnId, long producerId, short producerEpoch, Set<TopicPartition> tps,
                            Consumer<Map<TopicPartition, Errors>> done) {
        Set<TopicPartition> ask = new HashSet<>();
        Map<TopicPartition, Errors> result = new HashMap<>();
        for (TopicPartition tp : tps) {
            Optional<Partition> p = partitions.get(tp);
            if (p.isPresent() && p.get().hasOngoingTransaction(producerId, producerEpoch)) result.put(tp, Errors.NONE);
            else ask.add(tp);
        }
        if (ask.isEmpty()) { // nothing to wait for: go on in the caller's (request handler's) thread
            done.accept(result);
            return;
        }
        Consumer<Map<TopicPartition, Errors>> answer = errors -> continuation.execute(() -> {
            for (TopicPartition tp : ask) result.put(tp, forAppend(errors.getOrDefault(tp, Errors.NETWORK_EXCEPTION)));
            done.accept(result);
        });
        Optional<Integer> coordinator = coordinatorOf.apply(txnId);
        if (coordinator.isEmpty()) {
            answer.accept(Map.of());
        } else if (coordinator.get() == nodeId) {
            local.addPartitions(txnId, producerId, producerEpoch, ask, error -> {
                Map<TopicPartition, Errors> each = new HashMap<>();
                ask.forEach(tp -> each.put(tp, error));
                answer.accept(each);
            });
        } else {
            remote.add(coordinator.get(), txnId, producerId, producerEpoch, ask)
                    .exceptionally(ex -> Map.of()).thenAccept(answer);
        }
    }

    /** The coordinator's error as the producing (or offset-committing) request reports it. */
    static Errors forAppend(Errors e) {
        return switch (e) {
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, CONCURRENT_TRANSACTIONS,
                 NETWORK_EXCEPTION, REQUEST_TIMED_OUT -> Errors.NOT_ENOUGH_REPLICAS;
            default -> e;
        };
    }
}
