package io.faultline.broker.txn;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.ProducerStateManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * What Kafka's kafka-transactions tool asks: DescribeTransactions (on the coordinator), ListTransactions (every
 * broker lists the transactional ids it coordinates) and DescribeProducers (a partition leader's producer state).
 */
public final class TxnAdminApis {
    private final BrokerContext ctx;
    private final TransactionCoordinator coordinator;

    public TxnAdminApis(BrokerContext ctx, TransactionCoordinator coordinator) {
        this.ctx = ctx;
        this.coordinator = coordinator;
    }

    public void describeTransactions(Request r) {
        DescribeTransactionsRequestData req = r.data();
        DescribeTransactionsResponseData resp = new DescribeTransactionsResponseData().setThrottleTimeMs(0);
        for (String id : req.transactionalIds()) {
            var out = new DescribeTransactionsResponseData.TransactionState().setTransactionalId(id)
                    .setTransactionState("").setProducerId(-1).setProducerEpoch((short) -1).setTransactionStartTimeMs(-1);
            resp.transactionStates().add(out);
            Errors err = coordinator.checkCoordinator(id);
            TxnMetadata m = err == Errors.NONE ? coordinator.transactions().get(id) : null;
            if (err == Errors.NONE && m == null) err = Errors.TRANSACTIONAL_ID_NOT_FOUND;
            out.setErrorCode(err.code());
            if (m == null) continue;
            out.setTransactionState(m.state().kafkaName()).setTransactionTimeoutMs(m.timeoutMs())
                    .setTransactionStartTimeMs(m.txnStartMs()).setProducerId(m.producerId())
                    .setProducerEpoch(m.producerEpoch());
            m.partitions().stream().map(TopicPartition::topic).distinct().sorted().forEach(topic -> out.topics().add(
                    new DescribeTransactionsResponseData.TopicData().setTopic(topic).setPartitions(m.partitions()
                            .stream().filter(tp -> tp.topic().equals(topic)).map(TopicPartition::partition).sorted()
                            .toList())));
        }
        ctx.channel().sendResponse(r, resp);
    }

    public void listTransactions(Request r) {
        ListTransactionsRequestData req = r.data();
        ListTransactionsResponseData resp = new ListTransactionsResponseData().setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code());
        Pattern pattern = null;
        if (r.version() >= 2 && req.transactionalIdPattern() != null && !req.transactionalIdPattern().isEmpty()) {
            try {
                pattern = Pattern.compile(req.transactionalIdPattern());
            } catch (PatternSyntaxException e) {
                ctx.channel().sendResponse(r, resp.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
                return;
            }
        }
        Set<String> known = new java.util.HashSet<>();
        for (TransactionState s : TransactionState.values()) known.add(s.kafkaName());
        List<String> unknown = new ArrayList<>();
        for (String s : req.stateFilters()) if (!known.contains(s)) unknown.add(s);
        resp.setUnknownStateFilters(unknown);
        long now = ctx.time().milliseconds();
        List<ListTransactionsResponseData.TransactionState> states = new ArrayList<>();
        for (Map.Entry<String, TxnMetadata> e : coordinator.transactions().entrySet()) {
            TxnMetadata m = e.getValue();
            if (!req.stateFilters().isEmpty() && !req.stateFilters().contains(m.state().kafkaName())) continue;
            if (!req.producerIdFilters().isEmpty() && !req.producerIdFilters().contains(m.producerId())) continue;
            if (r.version() >= 1 && req.durationFilter() >= 0
                    && (m.state() != TransactionState.ONGOING || now - m.txnStartMs() < req.durationFilter())) continue;
            if (pattern != null && !pattern.matcher(e.getKey()).matches()) continue;
            states.add(new ListTransactionsResponseData.TransactionState().setTransactionalId(e.getKey())
                    .setProducerId(m.producerId()).setTransactionState(m.state().kafkaName()));
        }
        ctx.channel().sendResponse(r, resp.setTransactionStates(states));
    }

    public void describeProducers(Request r) {
        DescribeProducersRequestData req = r.data();
        DescribeProducersResponseData resp = new DescribeProducersResponseData().setThrottleTimeMs(0);
        for (DescribeProducersRequestData.TopicRequest t : req.topics()) {
            List<DescribeProducersResponseData.PartitionResponse> parts = new ArrayList<>();
            for (int p : t.partitionIndexes()) {
                var pr = new DescribeProducersResponseData.PartitionResponse().setPartitionIndex(p);
                parts.add(pr);
                Optional<Partition> part = ctx.partitions().get(new TopicPartition(t.name(), p));
                if (part.isEmpty()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (!part.get().isLeader()) {
                    pr.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                } else {
                    List<DescribeProducersResponseData.ProducerState> active = new ArrayList<>();
                    for (ProducerStateManager.ActiveProducer a : part.get().activeProducers()) {
                        active.add(new DescribeProducersResponseData.ProducerState().setProducerId(a.producerId())
                                .setProducerEpoch(a.epoch()).setLastSequence(a.lastSequence())
                                .setLastTimestamp(a.lastTimestamp()).setCoordinatorEpoch(-1)
                                .setCurrentTxnStartOffset(a.txnFirstOffset()));
                    }
                    pr.setErrorCode(Errors.NONE.code()).setActiveProducers(active);
                }
            }
            resp.topics().add(new DescribeProducersResponseData.TopicResponse().setName(t.name()).setPartitions(parts));
        }
        ctx.channel().sendResponse(r, resp);
    }
}
