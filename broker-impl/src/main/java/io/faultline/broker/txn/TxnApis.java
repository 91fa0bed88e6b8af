package io.faultline.broker.txn;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.group.OffsetStore;
import io.faultline.broker.group.OffsetStore.CommittedOffset;
import io.faultline.broker.network.Request;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transaction APIs of one listener: InitProducerId with a transactional id, AddPartitionsToTxn (v0-v3 from
 * clients; v4-v5 from brokers, batched by transaction, to add or only verify), AddOffsetsToTxn, EndTxn (v5+:
 * transaction version 2, the epoch is bumped and returned), TxnOffsetCommit (on the group's coordinator; v5+ is
 * transaction version 2, whose client sent no AddOffsetsToTxn, so the group's offsets partition is added here first)
 * and WriteTxnMarkers (from coordinators).
 */
public final class TxnApis {
    private final BrokerContext ctx;
    private final TransactionCoordinator coordinator;
    private final MarkerAppender markers;
    private final OffsetStore offsets;
    private final TxnPartitionAdder adder;
    /** EndTxn, TxnOffsetCommit: the first versions of transaction version 2. */
    private static final short FIRST_V2_END_TXN = 5;
    private static final short FIRST_V2_TXN_OFFSET_COMMIT = 5;
    /** AddPartitionsToTxn v4+ is broker-to-broker and batches transactions. */
    private static final short FIRST_BROKER_ADD_PARTITIONS = 4;

    public TxnApis(BrokerContext ctx, TransactionCoordinator coordinator, MarkerAppender markers, OffsetStore offsets,
                   TxnPartitionAdder adder) {
        this.ctx = ctx;
        this.coordinator = coordinator;
        this.markers = markers;
        this.offsets = offsets;
        this.adder = adder;
    }

    /** InitProducerId of a transactional producer (the idempotent case stays with ProducerIdApi). */
    public void initProducerId(Request r) {
        InitProducerIdRequestData req = r.data();
        coordinator.initProducerId(req.transactionalId(), req.transactionTimeoutMs(),
                r.version() >= 3 ? req.producerId() : -1, r.version() >= 3 ? req.producerEpoch() : -1,
                res -> ctx.channel().sendResponse(r, new InitProducerIdResponseData().setThrottleTimeMs(0)
                        .setErrorCode(clientError(res.error(), r.version(), 4).code())
                        .setProducerId(res.producerId()).setProducerEpoch(res.producerEpoch())));
    }

    public void addPartitionsToTxn(Request r) {
        AddPartitionsToTxnRequestData req = r.data();
        if (r.version() >= FIRST_BROKER_ADD_PARTITIONS) {
            brokerAddPartitions(r, req);
            return;
        }
        Map<String, List<Integer>> asked = new LinkedHashMap<>();
        req.v3AndBelowTopics().forEach(t -> asked.computeIfAbsent(t.name(), n -> new ArrayList<>()).addAll(t.partitions()));
        Set<TopicPartition> tps = new HashSet<>();
        Set<String> unknown = new HashSet<>();
        asked.forEach((topic, parts) -> {
            var img = ctx.metadata().image().topic(topic);
            for (int p : parts) {
                if (img.isEmpty() || img.get().partition(p) == null || Topic.isInternal(topic)) unknown.add(topic);
                else tps.add(new TopicPartition(topic, p));
            }
        });
        if (!unknown.isEmpty()) {
            // As Kafka: nothing is added when any partition is unknown; the others were not attempted.
            ctx.channel().sendResponse(r, partitionsResponse(asked, t -> unknown.contains(t)
                    ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.OPERATION_NOT_ATTEMPTED));
            return;
        }
        coordinator.addPartitions(req.v3AndBelowTransactionalId(), req.v3AndBelowProducerId(),
                req.v3AndBelowProducerEpoch(), tps, error -> ctx.channel().sendResponse(r,
                        partitionsResponse(asked, t -> clientError(error, r.version(), 2))));
    }

    /**
     * AddPartitionsToTxn v4+, from partition leaders: per transaction, add its partitions (verifyOnly false, transaction
     * version 2's server-side add) or only check that they are in it (verifyOnly true). Answered once every
     * transaction of the batch has its answer.
     */
    private void brokerAddPartitions(Request r, AddPartitionsToTxnRequestData req) {
        AddPartitionsToTxnResponseData resp = new AddPartitionsToTxnResponseData().setThrottleTimeMs(0);
        var txns = req.transactions();
        if (txns.isEmpty()) {
            ctx.channel().sendResponse(r, resp);
            return;
        }
        AtomicInteger left = new AtomicInteger(txns.size());
        for (var t : txns) {
            Set<TopicPartition> tps = new HashSet<>();
            t.topics().forEach(topic -> topic.partitions().forEach(p -> tps.add(new TopicPartition(topic.name(), p))));
            java.util.function.Consumer<Map<TopicPartition, Errors>> answer = errors -> {
                synchronized (resp) {
                    resp.resultsByTransaction().add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnResult()
                            .setTransactionalId(t.transactionalId()).setTopicResults(topicResults(errors)));
                }
                if (left.decrementAndGet() == 0) ctx.channel().sendResponse(r, resp);
            };
            if (t.verifyOnly()) {
                answer.accept(coordinator.verify(t.transactionalId(), t.producerId(), t.producerEpoch(), tps));
            } else {
                coordinator.addPartitions(t.transactionalId(), t.producerId(), t.producerEpoch(), tps, error -> {
                    Map<TopicPartition, Errors> each = new HashMap<>();
                    tps.forEach(tp -> each.put(tp, error));
                    answer.accept(each);
                });
            }
        }
    }

    private static AddPartitionsToTxnTopicResultCollection topicResults(Map<TopicPartition, Errors> errors) {
        AddPartitionsToTxnTopicResultCollection topics = new AddPartitionsToTxnTopicResultCollection();
        Map<String, AddPartitionsToTxnTopicResult> byTopic = new LinkedHashMap<>();
        errors.forEach((tp, e) -> byTopic.computeIfAbsent(tp.topic(), n -> {
            AddPartitionsToTxnTopicResult t = new AddPartitionsToTxnTopicResult().setName(n);
            topics.add(t);
            return t;
        }).resultsByPartition().add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(tp.partition())
                .setPartitionErrorCode(e.code())));
        return topics;
    }

    private static AddPartitionsToTxnResponseData partitionsResponse(Map<String, List<Integer>> asked,
                                                                     java.util.function.Function<String, Errors> errorOf) {
        AddPartitionsToTxnTopicResultCollection topics = new AddPartitionsToTxnTopicResultCollection();
        asked.forEach((topic, parts) -> {
            AddPartitionsToTxnPartitionResultCollection results = new AddPartitionsToTxnPartitionResultCollection();
            for (int p : new java.util.TreeSet<>(parts)) {
                results.add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(p)
                        .setPartitionErrorCode(errorOf.apply(topic).code()));
            }
            topics.add(new AddPartitionsToTxnTopicResult().setName(topic).setResultsByPartition(results));
        });
        return new AddPartitionsToTxnResponseData().setThrottleTimeMs(0).setResultsByTopicV3AndBelow(topics);
    }

    public void addOffsetsToTxn(Request r) {
        AddOffsetsToTxnRequestData req = r.data();
        TopicPartition offsetsPartition = offsets.offsetsPartition(req.groupId());
        coordinator.addPartitions(req.transactionalId(), req.producerId(), req.producerEpoch(), Set.of(offsetsPartition),
                error -> ctx.channel().sendResponse(r, new AddOffsetsToTxnResponseData().setThrottleTimeMs(0)
                        .setErrorCode(clientError(error, r.version(), 2).code())));
    }

    public void endTxn(Request r) {
        EndTxnRequestData req = r.data();
        coordinator.endTxn(req.transactionalId(), req.producerId(), req.producerEpoch(), req.committed(),
                r.version() >= FIRST_V2_END_TXN, res -> ctx.channel().sendResponse(r, new EndTxnResponseData()
                        .setThrottleTimeMs(0).setErrorCode(clientError(res.error(), r.version(), 2).code())
                        .setProducerId(res.producerId()).setProducerEpoch(res.producerEpoch())));
    }

    /** PRODUCER_FENCED came with these versions; older clients know it as INVALID_PRODUCER_EPOCH. */
    private static Errors clientError(Errors e, short version, int fencedSince) {
        return e == Errors.PRODUCER_FENCED && version < fencedSince ? Errors.INVALID_PRODUCER_EPOCH : e;
    }

    /** WriteTxnMarkers from a coordinator: each marker on each partition, answered once all are replicated. */
    public void writeTxnMarkers(Request r) {
        WriteTxnMarkersRequestData req = r.data();
        WriteTxnMarkersResponseData resp = new WriteTxnMarkersResponseData();
        List<WriteTxnMarkersRequestData.WritableTxnMarker> all = req.markers();
        if (all.isEmpty()) {
            ctx.channel().sendResponse(r, resp);
            return;
        }
        AtomicInteger left = new AtomicInteger(all.size());
        for (WriteTxnMarkersRequestData.WritableTxnMarker m : all) {
            WriteTxnMarkersResponseData.WritableTxnMarkerResult result =
                    new WriteTxnMarkersResponseData.WritableTxnMarkerResult().setProducerId(m.producerId());
            resp.markers().add(result);
            List<TopicPartition> tps = new ArrayList<>();
            m.topics().forEach(t -> t.partitionIndexes().forEach(p -> tps.add(new TopicPartition(t.name(), p))));
            markers.write(m.producerId(), m.producerEpoch(), m.coordinatorEpoch(), m.transactionResult(), tps, errors -> {
                synchronized (resp) {
                    Map<String, WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult> byTopic = new LinkedHashMap<>();
                    errors.forEach((tp, e) -> byTopic.computeIfAbsent(tp.topic(), n -> {
                        var t = new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult().setName(n);
                        result.topics().add(t);
                        return t;
                    }).partitions().add(new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult()
                            .setPartitionIndex(tp.partition()).setErrorCode(e.code())));
                }
                if (left.decrementAndGet() == 0) ctx.channel().sendResponse(r, resp);
            });
        }
    }

    /**
     * TxnOffsetCommit, on the group's coordinator: the offsets are written to the group's offsets partition as part of
     * the producer's transaction and become visible only when its COMMIT marker is written there.
     */
    public void txnOffsetCommit(Request r) {
        TxnOffsetCommitRequestData req = r.data();
        if (r.version() < FIRST_V2_TXN_OFFSET_COMMIT) {
            commitOffsets(r, req);
            return;
        }
        TopicPartition offsetsPartition = offsets.offsetsPartition(req.groupId());
        adder.ensureAdded(req.transactionalId(), req.producerId(), req.producerEpoch(), Set.of(offsetsPartition),
                errors -> {
                    Errors e = errors.getOrDefault(offsetsPartition, Errors.UNKNOWN_SERVER_ERROR);
                    if (e == Errors.NONE) commitOffsets(r, req);
                    else ctx.channel().sendResponse(r, offsetCommitResponse(req, addError(e)));
                });
    }

    /**
     * A failed add of the offsets partition as TxnOffsetCommit reports it: fenced as PRODUCER_FENCED, a coordinator
     * that cannot answer now as the retriable COORDINATOR_LOAD_IN_PROGRESS (the group coordinator is fine).
     */
    private static Errors addError(Errors e) {
        return switch (e) {
            case INVALID_PRODUCER_EPOCH -> Errors.PRODUCER_FENCED;
            case NOT_ENOUGH_REPLICAS -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
            default -> e;
        };
    }

    private void commitOffsets(Request r, TxnOffsetCommitRequestData req) {
        Errors error = Errors.NONE;
        Map<TopicPartition, CommittedOffset> commits = new HashMap<>();
        long now = ctx.time().milliseconds();
        for (var t : req.topics()) {
            for (var p : t.partitions()) {
                commits.put(new TopicPartition(t.name(), p.partitionIndex()), new CommittedOffset(p.committedOffset(),
                        p.committedLeaderEpoch(), p.committedMetadata(), now));
            }
        }
        long required = -1;
        try {
            offsets.checkReadable(req.groupId());
            if (!commits.isEmpty()) {
                required = offsets.commitTransactional(req.groupId(), req.producerId(), req.producerEpoch(), commits);
            }
        } catch (ApiException e) {
            error = Errors.forException(e);
        }
        if (error != Errors.NONE || required < 0) {
            ctx.channel().sendResponse(r, offsetCommitResponse(req, groupError(error)));
            return;
        }
        TopicPartition tp = offsets.offsetsPartition(req.groupId());
        markers.awaitReplicated(Map.of(tp, required), result -> ctx.channel().sendResponse(r,
                offsetCommitResponse(req, groupError(result.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR)))));
    }

    /** Append errors as Kafka's group coordinator answers them. */
    private static Errors groupError(Errors e) {
        return switch (e) {
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT ->
                    Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            case INVALID_PRODUCER_EPOCH -> Errors.PRODUCER_FENCED;
            default -> e;
        };
    }

    private static TxnOffsetCommitResponseData offsetCommitResponse(TxnOffsetCommitRequestData req, Errors error) {
        TxnOffsetCommitResponseData resp = new TxnOffsetCommitResponseData().setThrottleTimeMs(0);
        for (var t : req.topics()) {
            var rt = new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(t.name());
            for (var p : t.partitions()) {
                rt.partitions().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
            }
            resp.topics().add(rt);
        }
        return resp;
    }
}
