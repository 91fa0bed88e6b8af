package io.faultline.broker.api;

import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.purgatory.DelayedOperation;
import io.faultline.broker.replication.LeaderState;
import io.faultline.broker.replication.ReadReplicaSelector;
import io.faultline.broker.replication.ReplicaRequestHandler;
import io.faultline.broker.replication.ReplicaState;
import io.faultline.broker.storage.PartitionLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetch v4-v18 with full fetches only (session id 0): topic names up to v12, ids from v13. Consumers read up to
 * the high watermark (read_committed: the last stable offset, with the aborted transactions of the range), replicas
 * up to the log end. From v11 a consumer may read from a follower, up to that follower's high watermark (KIP-392);
 * with replica.selector.class rack-aware, a leader sends a consumer that names its rack to an in-sync follower there
 * (the preferred read replica, no records). A fetch waits in the fetch purgatory until minBytes are available, an
 * error occurs, a preferred replica is named, or maxWaitMs passes.
 */
public final class FetchApi {
    private static final Logger log = LoggerFactory.getLogger(FetchApi.class);
    private static final short FIRST_TOPIC_ID_VERSION = 13;
    private static final short FIRST_REPLICA_STATE_VERSION = 15;
    private static final short FIRST_SESSION_VERSION = 7;
    private static final short FIRST_FOLLOWER_READ_VERSION = 11;

    private final BrokerContext ctx;

    public FetchApi(BrokerContext ctx) {
        this.ctx = ctx;
    }

    /** One requested partition, resolved. */
    private record Target(String topicName, Uuid topicId, TopicPartition tp, FetchRequestData.FetchPartition req,
                          Errors resolveError) {
    }

    /** The answer assembled from one read pass; answer at once on an error or a preferred read replica. */
    private record ReadPass(FetchResponseData response, int bytes, boolean answerNow) {
    }

    public void handle(Request r) {
        FetchRequestData req = r.data();
        short v = r.version();
        if (v >= FIRST_SESSION_VERSION && req.sessionId() != 0) {
            // We never create sessions, so a client can only name one from a previous broker incarnation.
            ctx.channel().sendResponse(r, new FetchResponseData().setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code())
                    .setSessionId(0));
            return;
        }
        int replicaId = v >= FIRST_REPLICA_STATE_VERSION ? req.replicaState().replicaId() : req.replicaId();
        boolean consumer = replicaId < 0;
        List<Target> targets = new ArrayList<>();
        for (FetchRequestData.FetchTopic ft : req.topics()) {
            Optional<TopicImage> t = v >= FIRST_TOPIC_ID_VERSION ? ctx.metadata().image().topic(ft.topicId())
                    : ctx.metadata().image().topic(ft.topic());
            for (FetchRequestData.FetchPartition fp : ft.partitions()) {
                if (t.isEmpty()) {
                    targets.add(new Target(ft.topic(), ft.topicId(), null, fp, v >= FIRST_TOPIC_ID_VERSION
                            ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION));
                } else {
                    targets.add(new Target(t.get().name(), t.get().id(), new TopicPartition(t.get().name(),
                            fp.partition()), fp, Errors.NONE));
                }
            }
        }
        int maxBytes = req.maxBytes() <= 0 ? Integer.MAX_VALUE : req.maxBytes();
        boolean readCommitted = req.isolationLevel() == 1;
        String rack = v >= FIRST_FOLLOWER_READ_VERSION && consumer ? req.rackId() : "";
        ReadPass first = readAll(targets, v, replicaId, maxBytes, readCommitted, rack);
        if (req.maxWaitMs() <= 0 || first.answerNow() || first.bytes() >= req.minBytes() || targets.isEmpty()) {
            ctx.channel().sendResponse(r, first.response());
            return;
        }
        List<TopicPartition> keys = targets.stream().filter(t -> t.tp() != null).map(Target::tp).distinct().toList();
        ctx.partitions().watchFetch(new DelayedOperation(req.maxWaitMs()) {
            private ReadPass ready;

            @Override
            public boolean tryComplete() {
                ReadPass pass = readAll(targets, v, replicaId, maxBytes, readCommitted, rack);
                if (pass.answerNow() || pass.bytes() >= req.minBytes()) {
                    ready = pass;
                    return forceComplete();
                }
                return false;
            }

            @Override
            protected void onComplete() {
                ReadPass pass = ready != null ? ready : readAll(targets, v, replicaId, maxBytes, readCommitted, rack);
                ctx.channel().sendResponse(r, pass.response());
            }
        }, keys);
    }

    private ReadPass readAll(List<Target> targets, short v, int replicaId, int maxBytes, boolean readCommitted,
                             String rack) {
        boolean consumer = replicaId < 0;
        boolean followerMayServe = consumer && v >= FIRST_FOLLOWER_READ_VERSION;
        FetchResponseData resp = new FetchResponseData().setThrottleTimeMs(0).setErrorCode(Errors.NONE.code())
                .setSessionId(0);
        int remaining = maxBytes;
        int total = 0;
        boolean answerNow = false;
        FetchableTopicResponse current = null;
        for (Target t : targets) {
            boolean sameTopic = current != null && (v >= FIRST_TOPIC_ID_VERSION
                    ? current.topicId().equals(t.topicId()) : current.topic().equals(t.topicName()));
            if (!sameTopic) {
                current = new FetchableTopicResponse();
                if (v >= FIRST_TOPIC_ID_VERSION) current.setTopicId(t.topicId());
                else current.setTopic(t.topicName());
                resp.responses().add(current);
            }
            PartitionData pd = new PartitionData().setPartitionIndex(t.req().partition()).setHighWatermark(-1)
                    .setLastStableOffset(-1).setLogStartOffset(-1).setPreferredReadReplica(-1)
                    .setRecords(MemoryRecords.EMPTY);
            current.partitions().add(pd);
            if (t.resolveError() != Errors.NONE) {
                pd.setErrorCode(t.resolveError().code());
                answerNow = true;
                continue;
            }
            Optional<Partition> p = ctx.partitions().get(t.tp());
            if (p.isEmpty()) {
                pd.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                answerNow = true;
                continue;
            }
            Partition part = p.get();
            long hw = part.highWatermark();
            pd.setHighWatermark(hw).setLastStableOffset(part.lastStableOffset())
                    .setLogStartOffset(part.log().logStartOffset());
            Optional<LeaderState> replicated = consumer ? Optional.empty() : ctx.replicationLeader(t.tp());
            if (replicated.isPresent()) {
                // A follower: read up to the log end, diverging epoch, its progress recorded (HW, ISR).
                int used = ReplicaRequestHandler.fillPartition(replicated.get(), replicaId, t.req(), pd, remaining);
                total += used;
                remaining -= used;
                FetchResponseData.EpochEndOffset d = pd.divergingEpoch();
                if (pd.errorCode() != Errors.NONE.code() || d.epoch() >= 0 || d.endOffset() >= 0) answerNow = true;
                continue;
            }
            try {
                int limit = Math.min(t.req().partitionMaxBytes(), remaining);
                if (limit <= 0 && total > 0) continue; // response full: later partitions get nothing this time
                OptionalInt preferred = rack == null || rack.isEmpty() ? OptionalInt.empty()
                        : preferredReadReplica(part, rack, t.req());
                if (preferred.isPresent()) {
                    pd.setPreferredReadReplica(preferred.getAsInt()); // no records: the consumer asks that replica
                    answerNow = true;
                    continue;
                }
                long lso = part.lastStableOffset();
                PartitionLog.SliceRead res = part.readForSend(t.req().fetchOffset(), Math.max(limit, 1), consumer,
                        t.req().currentLeaderEpoch(), readCommitted, followerMayServe);
                pd.setRecords(res.records()).setHighWatermark(res.highWatermark())
                        .setLastStableOffset(Math.min(lso, res.highWatermark())).setLogStartOffset(res.logStartOffset());
                if (consumer && readCommitted) {
                    // The client drops the records of these transactions (their ABORT marker is in or after the data).
                    List<FetchResponseData.AbortedTransaction> aborted = new ArrayList<>();
                    for (var a : part.abortedTransactions(t.req().fetchOffset(), res.nextOffset())) {
                        aborted.add(new FetchResponseData.AbortedTransaction().setProducerId(a.producerId())
                                .setFirstOffset(a.firstOffset()));
                    }
                    pd.setAbortedTransactions(aborted);
                }
                int size = res.records().sizeInBytes();
                total += size;
                remaining -= size;
            } catch (ApiException e) {
                pd.setErrorCode(Errors.forException(e).code());
                answerNow = true;
            } catch (RuntimeException e) {
                log.warn("Fetch from {} failed", t.tp(), e);
                pd.setErrorCode(Errors.forException(e).code());
                answerNow = true;
            }
        }
        return new ReadPass(resp, total, answerNow);
    }

    /**
     * With rack-aware reads on, the in-sync follower on a live broker in the consumer's rack that should serve it
     * (Kafka's ReplicaManager.findPreferredReadReplica); empty when this broker does not lead or should serve it itself.
     */
    private OptionalInt preferredReadReplica(Partition part, String rack, FetchRequestData.FetchPartition req) {
        if (!ctx.config().rackAwareReads() || !part.isLeader()) return OptionalInt.empty();
        Optional<LeaderState> leader = ctx.replicationLeader(part.topicPartition());
        if (leader.isEmpty()) return OptionalInt.empty();
        part.validateLeaderEpoch(req.currentLeaderEpoch());
        var brokers = ctx.metadata().image().brokers();
        BrokerRegistration self = brokers.get(ctx.nodeId());
        Set<Integer> isr = leader.get().isrState().isr();
        List<ReadReplicaSelector.Candidate> candidates = new ArrayList<>();
        for (int id : leader.get().replicas()) {
            BrokerRegistration b = brokers.get(id);
            Optional<ReplicaState> state = leader.get().replicaState(id);
            if (id == ctx.nodeId() || !isr.contains(id) || b == null || b.fenced() || b.inControlledShutdown()
                    || !b.endpoints().containsKey(ctx.listenerName()) || state.isEmpty()) {
                continue;
            }
            candidates.add(new ReadReplicaSelector.Candidate(id, b.rack(), state.get().logEndOffset(),
                    state.get().logStartOffset(), state.get().lastCaughtUpTimeMs()));
        }
        return ReadReplicaSelector.select(rack, self == null ? null : self.rack(), candidates, req.fetchOffset());
    }
}
