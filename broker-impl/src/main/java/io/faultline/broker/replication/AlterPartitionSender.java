package io.faultline.broker.replication;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Sends ISR proposals to the controller as Kafka's AlterPartition request (with the members' broker epochs, KIP-903)
 * over whatever channel the broker has to the active controller, and turns the answer into a
 * {@link IsrChangeSender.Result}: committed ISR and epochs, or the partition's (or request's) error.
 */
public final class AlterPartitionSender implements IsrChangeSender {
    /** The broker's channel to the active controller. */
    @FunctionalInterface
    public interface Transport {
        CompletableFuture<AlterPartitionResponseData> send(AlterPartitionRequestData request);
    }

    private final int brokerId;
    private final LongSupplier brokerEpoch;
    private final IntToLongFunction memberEpochs;
    private final Transport transport;

    /**
     * @param brokerEpoch  this broker's registration epoch
     * @param memberEpochs a member's broker epoch from the metadata image (-1 when unknown: the controller skips
     *                     the check)
     */
    public AlterPartitionSender(int brokerId, LongSupplier brokerEpoch, IntToLongFunction memberEpochs,
                                Transport transport) {
        this.brokerId = brokerId;
        this.brokerEpoch = brokerEpoch;
        this.memberEpochs = memberEpochs;
        this.transport = transport;
    }

    @Override
    public void submit(Proposal p, Consumer<Result> onResult) {
        AlterPartitionRequestData.PartitionData pd = new AlterPartitionRequestData.PartitionData()
                .setPartitionIndex(p.tp().partition()).setLeaderEpoch(p.leaderEpoch())
                .setPartitionEpoch(p.partitionEpoch());
        for (int b : p.newIsr().stream().sorted().toList()) {
            pd.newIsrWithEpochs().add(new AlterPartitionRequestData.BrokerState().setBrokerId(b)
                    .setBrokerEpoch(memberEpochs.applyAsLong(b)));
        }
        AlterPartitionRequestData req = new AlterPartitionRequestData().setBrokerId(brokerId)
                .setBrokerEpoch(brokerEpoch.getAsLong());
        req.topics().add(new AlterPartitionRequestData.TopicData().setTopicId(p.topicId())
                .setPartitions(new ArrayList<>(List.of(pd))));
        CompletableFuture<AlterPartitionResponseData> f;
        try {
            f = transport.send(req);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((resp, err) -> onResult.accept(toResult(p, resp, err)));
    }

    static Result toResult(Proposal p, AlterPartitionResponseData resp, Throwable err) {
        if (err != null) {
            Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
            Errors e = Errors.forException(cause);
            return new Result.Rejected(e == Errors.UNKNOWN_SERVER_ERROR ? Errors.NETWORK_EXCEPTION : e);
        }
        if (resp.errorCode() != Errors.NONE.code()) return new Result.Rejected(Errors.forCode(resp.errorCode()));
        for (AlterPartitionResponseData.TopicData t : resp.topics()) {
            if (!t.topicId().equals(p.topicId())) continue;
            for (AlterPartitionResponseData.PartitionData pd : t.partitions()) {
                if (pd.partitionIndex() != p.tp().partition()) continue;
                if (pd.errorCode() != Errors.NONE.code()) return new Result.Rejected(Errors.forCode(pd.errorCode()));
                return new Result.Committed(new HashSet<>(pd.isr()), pd.leaderEpoch(), pd.partitionEpoch());
            }
        }
        return new Result.Rejected(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
}
