package io.faultline.broker.server;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.api.ProduceApi;
import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.txn.TxnPartitionAdder;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Produce with transaction version 2 (KIP-890 part 2): a Produce v12+ of a transactional producer carries batches
 * for partitions its client never added to the transaction, so before the append the partitions this node leads are
 * added through the producer's transaction coordinator ({@link TxnPartitionAdder}); the ones it refuses get its error
 * and are not appended. Other produce requests go straight to {@link ProduceApi}.
 */
final class TransactionalProduce {
    /** Produce v12 is the first a client sends with transaction version 2 (ProduceRequest.isTransactionV2Requested). */
    static final short FIRST_V2_PRODUCE = 12;
    private static final short FIRST_TOPIC_ID_VERSION = 13;

    private final BrokerContext ctx;
    private final ProduceApi produce;
    private final TxnPartitionAdder adder;

    TransactionalProduce(BrokerContext ctx, TxnPartitionAdder adder) {
        this.ctx = ctx;
        this.produce = new ProduceApi(ctx);
        this.adder = adder;
    }

    void handle(Request r) {
        ProduceRequestData req = r.data();
        if (r.version() < FIRST_V2_PRODUCE || req.transactionalId() == null) {
            produce.handle(r);
            return;
        }
        Set<TopicPartition> tps = new HashSet<>();
        RecordBatch first = null;
        for (ProduceRequestData.TopicProduceData td : req.topicData()) {
            Optional<TopicImage> topic = r.version() >= FIRST_TOPIC_ID_VERSION
                    ? ctx.metadata().image().topic(td.topicId()) : ctx.metadata().image().topic(td.name());
            if (topic.isEmpty() || Topic.isInternal(topic.get().name())) continue; // ProduceApi refuses these
            for (ProduceRequestData.PartitionProduceData pd : td.partitionData()) {
                TopicPartition tp = new TopicPartition(topic.get().name(), pd.index());
                RecordBatch b = firstBatch(pd);
                if (b == null || !b.isTransactional()) continue;
                if (!ctx.partitions().get(tp).map(Partition::isLeader).orElse(false)) continue;
                tps.add(tp);
                if (first == null) first = b;
            }
        }
        if (tps.isEmpty()) {
            produce.handle(r);
            return;
        }
        adder.ensureAdded(req.transactionalId(), first.producerId(), first.producerEpoch(), tps,
                errors -> produce.handle(r, errors));
    }

    /** The first batch's header, or null when the records are not readable (ProduceApi then refuses them). */
    private static RecordBatch firstBatch(ProduceRequestData.PartitionProduceData pd) {
        try {
            if (!(pd.records() instanceof MemoryRecords mr) || mr.sizeInBytes() < 61) return null; // v2 batch header
            var it = mr.batches().iterator();
            return it.hasNext() ? it.next() : null;
        } catch (RuntimeException malformed) {
            return null;
        }
    }
}
