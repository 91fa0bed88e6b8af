package io.faultline.broker.api;

import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata and DescribeCluster answered from the committed metadata image (replicas, ISR, leader and epoch,
 * offline replicas on fenced brokers, each broker's endpoint on the listener the request came in on); CreateTopics,
 * DeleteTopics and CreatePartitions forwarded to the active controller.
 */
public final class TopicApis {
    private static final int AUTHORIZED_OPERATIONS_OMITTED = Integer.MIN_VALUE;
    /** DescribeCluster endpoint types (KIP-919): we serve broker endpoints only. */
    private static final byte ENDPOINT_TYPE_BROKER = 1;

    private final BrokerContext ctx;

    public TopicApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    /** Live brokers with an endpoint on this request's listener, by id. */
    private TreeMap<Integer, Endpoint> liveEndpoints(MetadataImage img) {
        TreeMap<Integer, Endpoint> out = new TreeMap<>();
        for (BrokerRegistration b : img.brokers().values()) {
            Endpoint e = b.endpoints().get(ctx.listenerName());
            if (!b.fenced() && e != null) out.put(b.id(), e);
        }
        return out;
    }

    public void metadata(Request r) {
        MetadataRequestData req = r.data();
        short v = r.version();
        MetadataImage img = ctx.metadata().image();
        MetadataResponseData resp = new MetadataResponseData().setThrottleTimeMs(0)
                .setClusterId(ctx.clusterId()).setControllerId(ctx.metadata().activeController().orElse(-1));
        liveEndpoints(img).forEach((id, e) -> resp.brokers().add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(id).setHost(e.host()).setPort(e.port()).setRack(img.brokers().get(id).rack())));
        boolean all = req.topics() == null || (v == 0 && req.topics().isEmpty());
        boolean autoCreate = ctx.config().autoCreateTopics() && (v < 4 || req.allowAutoTopicCreation());
        if (all) {
            for (TopicImage t : img.topicsByName().values()) resp.topics().add(describe(img, t, v));
        } else {
            for (MetadataRequestData.MetadataRequestTopic rt : req.topics()) resp.topics().add(lookup(img, rt, v, autoCreate));
        }
        ctx.channel().sendResponse(r, resp);
    }

    private MetadataResponseTopic lookup(MetadataImage img, MetadataRequestData.MetadataRequestTopic rt, short v,
                                         boolean autoCreate) {
        if (rt.name() == null) {
            Uuid id = rt.topicId();
            Optional<TopicImage> t = img.topic(id);
            if (t.isPresent()) return describe(img, t.get(), v);
            return new MetadataResponseTopic().setName(null).setTopicId(id).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
        }
        Optional<TopicImage> t = img.topic(rt.name());
        if (t.isPresent()) return describe(img, t.get(), v);
        if (autoCreate && !Topic.isInternal(rt.name()) && Topic.isValid(rt.name())) {
            // As Kafka: ask the controller to create it and tell the client to retry meanwhile.
            CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(30_000);
            create.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(rt.name()).setNumPartitions(-1)
                    .setReplicationFactor((short) -1));
            ctx.metadata().sendToController(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), create);
            return new MetadataResponseTopic().setName(rt.name()).setErrorCode(Errors.LEADER_NOT_AVAILABLE.code());
        }
        return new MetadataResponseTopic().setName(rt.name()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    private MetadataResponseTopic describe(MetadataImage img, TopicImage t, short v) {
        MetadataResponseTopic mt = new MetadataResponseTopic().setName(t.name())
                .setIsInternal(Topic.isInternal(t.name())).setErrorCode(Errors.NONE.code())
                .setTopicAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
        if (v >= 10) mt.setTopicId(t.id());
        t.partitions().forEach((p, reg) -> mt.partitions().add(describe(img, p, reg)));
        return mt;
    }

    static MetadataResponsePartition describe(MetadataImage img, int index, PartitionRegistration reg) {
        List<Integer> offline = new ArrayList<>();
        for (int replica : reg.replicas()) {
            BrokerRegistration b = img.brokers().get(replica);
            if (b == null || b.fenced()) offline.add(replica);
        }
        return new MetadataResponsePartition().setPartitionIndex(index)
                .setErrorCode((reg.hasLeader() ? Errors.NONE : Errors.LEADER_NOT_AVAILABLE).code())
                .setLeaderId(reg.leader()).setLeaderEpoch(reg.leaderEpoch())
                .setReplicaNodes(reg.replicas()).setIsrNodes(reg.isr()).setOfflineReplicas(offline);
    }

    public void createTopics(Request r) {
        CreateTopicsRequestData req = r.data();
        Forwarding.forward(ctx, r, resp -> img -> req.validateOnly()
                || ((CreateTopicsResponseData) resp).topics().stream()
                        .filter(t -> t.errorCode() == Errors.NONE.code())
                        .allMatch(t -> img.topic(t.name()).isPresent()));
    }

    public void deleteTopics(Request r) {
        Forwarding.forward(ctx, r, resp -> img -> ((DeleteTopicsResponseData) resp).responses().stream()
                .filter(t -> t.errorCode() == Errors.NONE.code())
                .allMatch(t -> (t.name() == null || img.topic(t.name()).isEmpty())
                        && (t.topicId() == null || t.topicId().equals(Uuid.ZERO_UUID) || img.topic(t.topicId()).isEmpty())));
    }

    public void createPartitions(Request r) {
        org.apache.kafka.common.message.CreatePartitionsRequestData req = r.data();
        Forwarding.forward(ctx, r, resp -> img -> req.validateOnly()
                || ((CreatePartitionsResponseData) resp).results().stream()
                        .filter(t -> t.errorCode() == Errors.NONE.code())
                        .allMatch(t -> req.topics().find(t.name()) == null || img.topic(t.name())
                                .map(ti -> ti.partitionCount() >= req.topics().find(t.name()).count()).orElse(false)));
    }

    public void describeCluster(Request r) {
        DescribeClusterRequestData req = r.data();
        short v = r.version();
        MetadataImage img = ctx.metadata().image();
        DescribeClusterResponseData resp = new DescribeClusterResponseData().setThrottleTimeMs(0)
                .setClusterId(ctx.clusterId()).setControllerId(ctx.metadata().activeController().orElse(-1))
                .setClusterAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
        if (v >= 1) {
            resp.setEndpointType(req.endpointType());
            if (req.endpointType() != ENDPOINT_TYPE_BROKER) {
                ctx.channel().sendResponse(r, resp.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                        .setErrorMessage("The broker only serves broker endpoints"));
                return;
            }
        }
        liveEndpoints(img).forEach((id, e) -> resp.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(id).setHost(e.host()).setPort(e.port()).setRack(img.brokers().get(id).rack())));
        ctx.channel().sendResponse(r, resp);
    }
}
