package io.faultline.broker.controller;

import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataSerde;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller's decisions, without Raft or sockets: given the latest image (committed plus this leader's own
 * pending records) and a request, produce the records to commit and the response to send once they commit.
 * Only the active controller uses it, from one thread. In-memory state (broker sessions, placement rotation) is
 * reset by {@link #activate} when this node becomes the active controller.
 */
public final class ControllerLogic {
    /**
     * Largest record batch one request may produce once serialized. One batch is one Raft entry, and an entry
     * larger than what Ratis can buffer for a follower can never be replicated (nothing commits after it), so
     * a request that would produce more is refused as a whole, before anything is written.
     */
    public static final int MAX_REQUEST_BATCH_BYTES = 1 << 20;
    /** Largest batch the controller writes at all (its own periodic decisions included); see {@link RaftSetup}. */
    static final int MAX_BATCH_BYTES = 4 << 20;

    private final ClusterControl cluster;
    private final TopicCreation creation;
    private final ReplicationControl replication;
    private final ConfigControl configs = new ConfigControl();
    private final ClientQuotaControl quotas = new ClientQuotaControl();
    private final LeaderElections elections;
    private final ControllerSettings settings;

    public ControllerLogic(Time time, ControllerSettings settings) {
        this(time, settings, Uuid::randomUuid);
    }

    /** {@code topicIds} supplies new topic ids (tests inject a deterministic sequence). */
    public ControllerLogic(Time time, ControllerSettings settings, Supplier<Uuid> topicIds) {
        Placement placement = new Placement();
        this.cluster = new ClusterControl(time, settings);
        this.creation = new TopicCreation(settings, placement, topicIds);
        this.replication = new ReplicationControl(settings, placement);
        this.elections = new LeaderElections(time, settings);
        this.settings = settings;
    }

    /**
     * This controller runs in node {@code nodeId}'s process: a registration of that node made by an earlier process
     * is dead by construction, so this node's broker need not wait out its session to register again.
     */
    public void setLocalNode(int nodeId) {
        cluster.setLocalNode(nodeId);
    }

    /** This node became the active controller with {@code image}: every registered broker gets a fresh session. */
    public void activate(MetadataImage image) {
        cluster.activate(image, -1);
    }

    /**
     * As {@link #activate(MetadataImage)}, but broker {@code suspect} (the node of the Raft leader this node replaced,
     * or -1) gets only the grace of a lost connection: alive, it heartbeats the new controller within two intervals;
     * dead, it is fenced without waiting out a whole fresh session.
     */
    public void activate(MetadataImage image, int suspect) {
        cluster.activate(image, suspect);
        elections.activate();
    }

    /**
     * Any thread: a BrokerHeartbeat just arrived and is queued for decision. Its session counts from now, not
     * from when it is decided; its epoch is checked against the image when sessions are checked.
     */
    public void heartbeatArrived(int brokerId, long brokerEpoch) {
        cluster.heartbeatArrived(brokerId, brokerEpoch);
    }

    /**
     * Any thread: the connection that carried this broker's heartbeats closed. Unless it heartbeats again within
     * two heartbeat intervals, the next session check fences it (a crashed process closes its sockets at once).
     */
    public void connectionLost(int brokerId, long brokerEpoch) {
        cluster.connectionLost(brokerId, brokerEpoch);
    }

    /** Decides on one request; throws IllegalArgumentException for a request type the controller does not handle. */
    public ControllerResult<? extends ApiMessage> handle(MetadataImage image, ApiMessage request) {
        ControllerResult<? extends ApiMessage> r = decide(image, request);
        if (r.records().isEmpty()) return r;
        int bytes = MetadataSerde.serializeBatch(r.records()).length;
        if (bytes <= MAX_REQUEST_BATCH_BYTES) return r;
        String why = "The request would write " + r.records().size() + " metadata records of " + bytes
                + " bytes, more than the controller's limit of " + MAX_REQUEST_BATCH_BYTES + " bytes per request";
        return ControllerResult.of(ErrorResponses.of(request, tooLarge(request), why));
    }

    /** The error Kafka gives for a request it refuses as too large for its type. */
    private static Errors tooLarge(ApiMessage request) {
        if (request instanceof CreateTopicsRequestData || request instanceof CreatePartitionsRequestData) {
            return Errors.POLICY_VIOLATION;
        }
        if (request instanceof IncrementalAlterConfigsRequestData || request instanceof AlterConfigsRequestData) {
            return Errors.INVALID_CONFIG;
        }
        return Errors.INVALID_REQUEST;
    }

    private ControllerResult<? extends ApiMessage> decide(MetadataImage image, ApiMessage request) {
        if (request instanceof BrokerRegistrationRequestData r) return cluster.register(image, r);
        if (request instanceof BrokerHeartbeatRequestData r) return cluster.heartbeat(image, r);
        if (request instanceof AlterPartitionRequestData r) return replication.alterPartition(image, r);
        if (request instanceof CreateTopicsRequestData r) return creation.create(image, r);
        if (request instanceof DeleteTopicsRequestData r) return replication.deleteTopics(image, r);
        if (request instanceof CreatePartitionsRequestData r) return replication.createPartitions(image, r);
        if (request instanceof IncrementalAlterConfigsRequestData r) return configs.incrementalAlter(image, r);
        if (request instanceof AlterConfigsRequestData r) return configs.alter(image, r);
        if (request instanceof AlterClientQuotasRequestData r) return quotas.alter(image, r);
        if (request instanceof AlterPartitionReassignmentsRequestData r) return Reassignments.alter(image, r, settings);
        if (request instanceof ElectLeadersRequestData r) return elections.elect(image, r);
        throw new IllegalArgumentException("the controller does not handle " + request.getClass().getSimpleName());
    }

    /** Periodic check: fences the brokers whose session lapsed; the response lists their ids. */
    public ControllerResult<List<Integer>> fenceExpiredBrokers(MetadataImage image) {
        return cluster.fenceExpired(image);
    }

    /**
     * Periodic check: when leader.imbalance.check.interval has passed on the injected clock and
     * auto.leader.rebalance.enable is on, moves leaderships back to preferred replicas; the response lists them.
     */
    public ControllerResult<List<TopicPartition>> rebalanceLeaders(MetadataImage image) {
        return elections.rebalance(image);
    }

    public static boolean handles(ApiMessage request) {
        return request instanceof BrokerRegistrationRequestData || request instanceof BrokerHeartbeatRequestData
                || request instanceof AlterPartitionRequestData || request instanceof CreateTopicsRequestData
                || request instanceof DeleteTopicsRequestData || request instanceof CreatePartitionsRequestData
                || request instanceof IncrementalAlterConfigsRequestData || request instanceof AlterConfigsRequestData
                || request instanceof AlterClientQuotasRequestData
                || request instanceof AlterPartitionReassignmentsRequestData || request instanceof ElectLeadersRequestData;
    }
}
