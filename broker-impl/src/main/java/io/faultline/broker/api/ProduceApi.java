package io.faultline.broker.api;

import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.MemoryPool;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionRole;
import io.faultline.broker.storage.DecompressionMemory;
import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce v3-v13: topic names up to v12, topic ids from v13. acks=0 gets no response (the connection is closed
 * if anything failed, as Kafka does), acks=1 answers after the local append, acks=all waits in the produce
 * purgatory for the high watermark.
 */
public final class ProduceApi {
    private static final Logger log = LoggerFactory.getLogger(ProduceApi.class);
    /** Produce v13 is the first to address topics by id. */
    private static final short FIRST_TOPIC_ID_VERSION = 13;

    private final BrokerContext ctx;

    public ProduceApi(BrokerContext ctx) {
        this.ctx = ctx;
    }

    public void handle(Request r) {
        handle(r, Map.of());
    }

    /**
     * As {@link #handle(Request)}, with the partitions whose append was already refused (transaction version 2: the
     * transaction coordinator did not add them to the producer's transaction) answered with that error.
     */
    public void handle(Request r, Map<TopicPartition, Errors> refused) {
        ProduceRequestData req = r.data();
        short v = r.version();
        short acks = req.acks();
        ProduceResponseData resp = new ProduceResponseData().setThrottleTimeMs(0);
        Map<TopicPartition, Map.Entry<PartitionProduceResponse, Long>> waiting = new LinkedHashMap<>();
        boolean anyError = false;
        Errors requestError = Errors.NONE;
        if (acks != 0 && acks != 1 && acks != -1) requestError = Errors.INVALID_REQUIRED_ACKS;
        for (ProduceRequestData.TopicProduceData td : req.topicData()) {
            Optional<TopicImage> topic = v >= FIRST_TOPIC_ID_VERSION ? ctx.metadata().image().topic(td.topicId())
                    : ctx.metadata().image().topic(td.name());
            TopicProduceResponse tr = new TopicProduceResponse();
            if (v >= FIRST_TOPIC_ID_VERSION) tr.setTopicId(td.topicId());
            else tr.setName(td.name());
            for (ProduceRequestData.PartitionProduceData pd : td.partitionData()) {
                PartitionProduceResponse pr = new PartitionProduceResponse().setIndex(pd.index())
                        .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
                tr.partitionResponses().add(pr);
                if (requestError != Errors.NONE) {
                    pr.setErrorCode(requestError.code());
                    anyError = true;
                    continue;
                }
                if (topic.isEmpty()) {
                    pr.setErrorCode((v >= FIRST_TOPIC_ID_VERSION ? Errors.UNKNOWN_TOPIC_ID
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                    anyError = true;
                    continue;
                }
                if (Topic.isInternal(topic.get().name())) {
                    // Only the broker writes its internal topics (the group coordinator appends directly): a
                    // client's record there would be replayed as coordinator state. Kafka refuses it the same way.
                    pr.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
                    if (v >= 8) pr.setErrorMessage("Cannot append to internal topic " + topic.get().name());
                    anyError = true;
                    continue;
                }
                TopicPartition tp = new TopicPartition(topic.get().name(), pd.index());
                Optional<Partition> partition = ctx.partitions().get(tp);
                if (partition.isEmpty()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    anyError = true;
                    continue;
                }
                Errors notAdded = refused.getOrDefault(tp, Errors.NONE);
                if (notAdded != Errors.NONE) {
                    pr.setErrorCode(notAdded.code());
                    anyError = true;
                    continue;
                }
                try {
                    MemoryRecords records = inPlace(pd.records());
                    if (req.transactionalId() == null) {
                        // As Kafka: transactional records only from a producer that names its transactional id.
                        for (var batch : records.batches()) {
                            if (batch.isTransactional()) {
                                throw new org.apache.kafka.common.errors.TransactionalIdAuthorizationException(
                                        "transactional records without a transactional id");
                            }
                        }
                    }
                    ctx.replicationLeader(tp).ifPresent(l -> l.checkEnoughReplicasForAppend(acks)); // min ISR
                    Partition.AppendResult res = appendWithDecodeMemory(partition.get(), records);
                    pr.setBaseOffset(res.firstOffset()).setLogAppendTimeMs(res.logAppendTime())
                            .setLogStartOffset(res.logStartOffset());
                    waiting.put(tp, new AbstractMap.SimpleEntry<>(pr, res.lastOffset() + 1));
                } catch (ApiException e) {
                    anyError = true;
                    pr.setErrorCode(Errors.forException(e).code());
                    if (v >= 8) pr.setErrorMessage(e.getMessage());
                    log.debug("Produce to {} failed: {}", tp, e.toString());
                } catch (RuntimeException e) {
                    anyError = true;
                    Errors err = Errors.forException(e);
                    pr.setErrorCode((err == Errors.UNKNOWN_SERVER_ERROR && e instanceof IllegalArgumentException
                            ? Errors.CORRUPT_MESSAGE : err).code());
                    log.warn("Produce to {} failed", tp, e);
                }
            }
            resp.responses().add(tr);
        }
        if (acks == 0) {
            if (anyError) ctx.channel().closeConnection(r);
            else ctx.channel().noResponse(r);
            return;
        }
        if (acks == 1 || waiting.isEmpty()) {
            ctx.channel().sendResponse(r, resp);
            return;
        }
        DelayedProduce op = new DelayedProduce(req.timeoutMs(), ctx.partitions(), waiting,
                () -> ctx.channel().sendResponse(r, resp), ctx::replicationLeader);
        ctx.partitions().watchProduce(op, new ArrayList<>(waiting.keySet()));
    }

    /**
     * Validation decompresses a compressed batch; the decoder's buffers (up to the batch's snappy chunk or zstd
     * window) are reserved in the broker's request memory first, so hostile batches cannot take the heap beyond
     * that budget. Never waits: if the memory is not there now the partition gets a retriable error.
     */
    private Partition.AppendResult appendWithDecodeMemory(Partition partition, MemoryRecords records) {
        long decode = DecompressionMemory.of(records);
        MemoryPool pool = ctx.requestMemory();
        if (decode == 0 || pool == null) return partition.appendAsLeader(records);
        if (decode > pool.capacity()) {
            throw new RecordTooLargeException("decompressing this batch needs " + decode + " bytes, more than the "
                    + "broker's request memory (queued.max.request.bytes=" + pool.capacity() + ")");
        }
        if (!pool.tryReserve(decode, false)) {
            throw new TimeoutException("no request memory free now for the " + decode + " bytes decompressing this "
                    + "batch needs; retry");
        }
        try {
            return partition.appendAsLeader(records);
        } finally {
            pool.release(decode);
        }
    }

    /**
     * The request's records, validated and then rewritten in place (offsets, epoch) and written to the log straight
     * from the request buffer: its bytes stay reserved in the request memory pool until the response is sent, and
     * the log keeps no reference to them, so no unaccounted copy is made.
     */
    private static MemoryRecords inPlace(BaseRecords records) {
        if (!(records instanceof MemoryRecords mr)) {
            throw new CorruptRecordException("records of unexpected type " + (records == null ? null : records.getClass()));
        }
        ByteBuffer buf = mr.buffer().slice();
        for (int pos = 0; pos + 12 <= buf.limit(); ) { // lengths near 2^31 overflow kafka-clients' batch iterator
            int length = buf.getInt(pos + 8);
            if (length < 0 || length > buf.limit() - pos - 12) {
                throw new CorruptRecordException("batch at byte " + pos + " declares " + length + " bytes");
            }
            pos += 12 + length;
        }
        MemoryRecords out = MemoryRecords.readableRecords(buf);
        // as Kafka's ProduceRequest.validateRecords (v3+): exactly one batch per partition
        var batches = out.batches().iterator();
        if (buf.remaining() == 0 || (batches.hasNext() && batches.next() != null && batches.hasNext())) {
            throw new InvalidRecordException("a produce request must carry exactly one record batch per partition");
        }
        return out;
    }
}
