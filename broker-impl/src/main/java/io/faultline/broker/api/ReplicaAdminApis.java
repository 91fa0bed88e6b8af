package io.faultline.broker.api;

import io.faultline.broker.controller.Reassignments;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.Request;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Replica placement and leadership for operators: AlterPartitionReassignments and ElectLeaders are forwarded to the
 * active controller (which owns every replica-set and leader change) and answered once this node's metadata shows
 * the effect; DescribeQuorum is forwarded too (only the Raft leader knows the followers' progress);
 * ListPartitionReassignments is answered from this node's committed metadata, where moves in progress live.
 */
public final class ReplicaAdminApis {
    private final BrokerContext ctx;

    public ReplicaAdminApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    public void registerWith(KafkaApis apis) {
        apis.register(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, this::alterPartitionReassignments)
                .register(ApiKeys.LIST_PARTITION_REASSIGNMENTS, this::listPartitionReassignments)
                .register(ApiKeys.ELECT_LEADERS, this::electLeaders)
                .register(ApiKeys.DESCRIBE_QUORUM, r -> Forwarding.forward(ctx, r, resp -> img -> true));
    }

    public void alterPartitionReassignments(Request r) {
        AlterPartitionReassignmentsRequestData req = r.data();
        Forwarding.forward(ctx, r, resp -> img -> {
            AlterPartitionReassignmentsResponseData out = (AlterPartitionReassignmentsResponseData) resp;
            for (AlterPartitionReassignmentsRequestData.ReassignableTopic t : req.topics()) {
                var results = out.responses().stream().filter(x -> x.name().equals(t.name())).findFirst();
                for (AlterPartitionReassignmentsRequestData.ReassignablePartition p : t.partitions()) {
                    boolean done = results.map(x -> x.partitions().stream().anyMatch(y ->
                            y.partitionIndex() == p.partitionIndex() && y.errorCode() != Errors.NONE.code())).orElse(true);
                    if (!done && !moveVisible(img, t.name(), p)) return false;
                }
            }
            return true;
        });
    }

    /** The move (or its cancel) is in {@code img}: the target set is the one asked for, or no move remains. */
    private static boolean moveVisible(MetadataImage img, String topic, AlterPartitionReassignmentsRequestData.ReassignablePartition p) {
        Optional<PartitionRegistration> reg = img.topic(topic).map(t -> t.partition(p.partitionIndex()));
        if (reg.isEmpty()) return true;
        if (p.replicas() == null) return !reg.get().isReassigning();
        return reg.get().targetReplicas().equals(p.replicas());
    }

    public void listPartitionReassignments(Request r) {
        ListPartitionReassignmentsRequestData req = r.data();
        ctx.channel().sendResponse(r, Reassignments.list(ctx.metadata().image(), req));
    }

    public void electLeaders(Request r) {
        ElectLeadersRequestData req = r.data();
        boolean preferred = r.version() == 0 || req.electionType() == ElectionType.PREFERRED.value;
        Forwarding.forward(ctx, r, resp -> img -> ((ElectLeadersResponseData) resp).replicaElectionResults().stream()
                .allMatch(t -> t.partitionResult().stream().filter(p -> p.errorCode() == Errors.NONE.code())
                        .allMatch(p -> elected(img, t.topic(), p.partitionId(), preferred))));
    }

    /** The election shows in {@code img}: the preferred replica leads, or (unclean) some replica does. */
    private static boolean elected(MetadataImage img, String topic, int partition, boolean preferred) {
        Predicate<PartitionRegistration> shown = preferred ? reg -> reg.leader() == reg.replicas().get(0)
                : PartitionRegistration::hasLeader;
        return img.topic(topic).map((TopicImage t) -> t.partition(partition)).map(shown::test).orElse(true);
    }
}
