package io.faultline.broker.api;

import io.faultline.broker.metadata.TopicInfo;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.Partition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/** Metadata, CreateTopics, DeleteTopics and DescribeCluster: the cluster as clients see it (one node). */
public final class TopicApis {
    private static final int AUTHORIZED_OPERATIONS_OMITTED = Integer.MIN_VALUE;
    /** DescribeCluster endpoint types (KIP-919): we serve broker endpoints only. */
    private static final byte ENDPOINT_TYPE_BROKER = 1;

    private final BrokerContext ctx;

    public TopicApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    public void metadata(Request r) {
        MetadataRequestData req = r.data();
        short v = r.version();
        MetadataResponseData resp = new MetadataResponseData().setThrottleTimeMs(0)
                .setClusterId(ctx.clusterId()).setControllerId(ctx.nodeId());
        resp.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(ctx.nodeId())
                .setHost(ctx.advertisedHost()).setPort(ctx.advertisedPort()).setRack(null));
        boolean all = req.topics() == null || (v == 0 && req.topics().isEmpty());
        boolean autoCreate = ctx.config().autoCreateTopics() && (v < 4 || req.allowAutoTopicCreation());
        if (all) {
            for (TopicInfo t : ctx.topics().all()) resp.topics().add(describe(t, v));
        } else {
            for (MetadataRequestData.MetadataRequestTopic rt : req.topics()) {
                resp.topics().add(lookup(rt, v, autoCreate));
            }
        }
        ctx.channel().sendResponse(r, resp);
    }

    private MetadataResponseTopic lookup(MetadataRequestData.MetadataRequestTopic rt, short v, boolean autoCreate) {
        if (rt.name() == null) {
            Uuid id = rt.topicId();
            Optional<TopicInfo> t = ctx.topics().byId(id);
            if (t.isPresent()) return describe(t.get(), v);
            return new MetadataResponseTopic().setName(null).setTopicId(id)
                    .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
        }
        Optional<TopicInfo> t = ctx.topics().byName(rt.name());
        if (t.isEmpty() && autoCreate && !Topic.isInternal(rt.name())) {
            try {
                t = Optional.of(ctx.topicManager().getOrCreate(rt.name(), ctx.config().numPartitions(), Map.of()));
            } catch (ApiException e) {
                return new MetadataResponseTopic().setName(rt.name()).setErrorCode(Errors.forException(e).code());
            }
        }
        if (t.isPresent()) return describe(t.get(), v);
        return new MetadataResponseTopic().setName(rt.name()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    private MetadataResponseTopic describe(TopicInfo t, short v) {
        MetadataResponseTopic mt = new MetadataResponseTopic().setName(t.name())
                .setIsInternal(Topic.isInternal(t.name())).setErrorCode(Errors.NONE.code())
                .setTopicAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
        if (v >= 10) mt.setTopicId(t.id());
        for (int p = 0; p < t.partitions(); p++) {
            Optional<Partition> part = ctx.partitions().get(new TopicPartition(t.name(), p));
            MetadataResponsePartition mp = new MetadataResponsePartition().setPartitionIndex(p)
                    .setReplicaNodes(List.of(ctx.nodeId())).setIsrNodes(List.of(ctx.nodeId()))
                    .setOfflineReplicas(List.of());
            if (part.isPresent()) {
                mp.setErrorCode(Errors.NONE.code()).setLeaderId(ctx.nodeId()).setLeaderEpoch(part.get().leaderEpoch());
            } else {
                mp.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setLeaderId(-1).setLeaderEpoch(-1);
            }
            mt.partitions().add(mp);
        }
        return mt;
    }

    public void createTopics(Request r) {
        CreateTopicsRequestData req = r.data();
        short v = r.version();
        CreateTopicsResponseData resp = new CreateTopicsResponseData().setThrottleTimeMs(0);
        Map<String, Integer> seen = new HashMap<>();
        req.topics().forEach(t -> seen.merge(t.name(), 1, Integer::sum));
        for (CreateTopicsRequestData.CreatableTopic t : req.topics()) {
            CreatableTopicResult res = new CreatableTopicResult().setName(t.name());
            try {
                if (seen.get(t.name()) > 1) throw new InvalidRequestException("Duplicate topic name " + t.name());
                int partitions;
                if (!t.assignments().isEmpty()) {
                    if (t.numPartitions() != -1 || t.replicationFactor() != -1) {
                        throw new InvalidRequestException("Both numPartitions or replicationFactor and "
                                + "replicasAssignments were set. Both cannot be used at the same time.");
                    }
                    for (CreateTopicsRequestData.CreatableReplicaAssignment a : t.assignments()) {
                        if (!a.brokerIds().equals(List.of(ctx.nodeId()))) {
                            throw new InvalidReplicaAssignmentException("Replica assignment " + a.brokerIds()
                                    + " names brokers other than the only broker " + ctx.nodeId());
                        }
                    }
                    partitions = t.assignments().size();
                } else {
                    partitions = t.numPartitions() == -1 ? ctx.config().numPartitions() : t.numPartitions();
                    if (t.replicationFactor() != -1 && t.replicationFactor() != 1) {
                        throw new InvalidReplicationFactorException("Unable to replicate the partition "
                                + t.replicationFactor() + " time(s): The target replication factor of "
                                + t.replicationFactor() + " cannot be reached because only 1 broker(s) are registered.");
                    }
                }
                Map<String, String> configs = new HashMap<>();
                t.configs().forEach(c -> configs.put(c.name(), c.value()));
                if (ctx.topics().byName(t.name()).isPresent()) {
                    throw new org.apache.kafka.common.errors.TopicExistsException("Topic '" + t.name()
                            + "' already exists.");
                }
                ctx.topicManager().validate(t.name(), partitions, configs);
                res.setNumPartitions(partitions).setReplicationFactor((short) 1);
                if (!req.validateOnly()) {
                    TopicInfo info = ctx.topicManager().create(t.name(), partitions, configs);
                    if (v >= 7) res.setTopicId(info.id());
                }
            } catch (ApiException e) {
                res.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage())
                        .setNumPartitions(-1).setReplicationFactor((short) -1);
            }
            resp.topics().add(res);
        }
        ctx.channel().sendResponse(r, resp);
    }

    public void deleteTopics(Request r) {
        DeleteTopicsRequestData req = r.data();
        short v = r.version();
        DeleteTopicsResponseData resp = new DeleteTopicsResponseData().setThrottleTimeMs(0);
        List<DeleteTopicsRequestData.DeleteTopicState> targets = new ArrayList<>();
        if (v >= 6) {
            targets.addAll(req.topics());
        } else {
            req.topicNames().forEach(n -> targets.add(new DeleteTopicsRequestData.DeleteTopicState().setName(n)));
        }
        for (DeleteTopicsRequestData.DeleteTopicState s : targets) {
            DeletableTopicResult res = new DeletableTopicResult().setName(s.name());
            Optional<TopicInfo> t = s.name() != null ? ctx.topics().byName(s.name())
                    : ctx.topics().byId(s.topicId());
            if (t.isEmpty()) {
                res.setErrorCode((s.name() != null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.UNKNOWN_TOPIC_ID).code());
                if (v >= 6) res.setTopicId(s.topicId());
            } else if (Topic.isInternal(t.get().name())) {
                res.setName(t.get().name()).setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                        .setErrorMessage("Internal topics cannot be deleted");
            } else {
                ctx.topicManager().delete(t.get().name());
                res.setName(t.get().name());
                if (v >= 6) res.setTopicId(t.get().id());
            }
            resp.responses().add(res);
        }
        ctx.channel().sendResponse(r, resp);
    }

    public void describeCluster(Request r) {
        DescribeClusterRequestData req = r.data();
        short v = r.version();
        DescribeClusterResponseData resp = new DescribeClusterResponseData().setThrottleTimeMs(0)
                .setClusterId(ctx.clusterId()).setControllerId(ctx.nodeId())
                .setClusterAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
        if (v >= 1) {
            resp.setEndpointType(req.endpointType());
            if (req.endpointType() != ENDPOINT_TYPE_BROKER) {
                ctx.channel().sendResponse(r, resp.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                        .setErrorMessage("The broker only serves broker endpoints"));
                return;
            }
        }
        resp.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(ctx.nodeId())
                .setHost(ctx.advertisedHost()).setPort(ctx.advertisedPort()).setRack(null));
        ctx.channel().sendResponse(r, resp);
    }
}
