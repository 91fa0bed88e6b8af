package io.faultline.broker.controller;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.PartitionRegistration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** Runs {@link ControllerLogic} as if every decision committed at once: records are replayed into the image. */
final class LogicHarness {
    final ManualTime time = new ManualTime();
    final ControllerSettings settings;
    final ControllerLogic logic;
    final List<MetadataRecord> log = new ArrayList<>();
    MetadataImage image = MetadataImage.EMPTY;
    private long nextTopicId = 1;

    LogicHarness() {
        this(ControllerSettings.DEFAULTS.withSessionTimeout(2000, 500));
    }

    LogicHarness(ControllerSettings settings) {
        this.settings = settings;
        this.logic = new ControllerLogic(time, settings, () -> new Uuid(0, nextTopicId++));
        logic.activate(image);
    }

    @SuppressWarnings("unchecked")
    <T extends ApiMessage> T run(ApiMessage request) {
        ControllerResult<? extends ApiMessage> r = logic.handle(image, request);
        commit(r.records());
        return (T) r.response();
    }

    void commit(List<MetadataRecord> records) {
        log.addAll(records);
        image = image.apply(image.offset() + 1, records);
    }

    List<Integer> tick() {
        ControllerResult<List<Integer>> r = logic.fenceExpiredBrokers(image);
        commit(r.records());
        return r.response();
    }

    long register(int id) {
        return register(id, new Uuid(42, id));
    }

    long register(int id, Uuid incarnation) {
        BrokerRegistrationRequestData req = new BrokerRegistrationRequestData().setBrokerId(id).setIncarnationId(incarnation)
                .setClusterId("c");
        req.listeners().add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("h" + id).setPort(9092));
        BrokerRegistrationResponseData resp = run(req);
        if (resp.errorCode() != 0) throw new AssertionError("registration failed: " + Errors.forCode(resp.errorCode()));
        return resp.brokerEpoch();
    }

    BrokerHeartbeatResponseData heartbeat(int id) {
        return heartbeat(id, false);
    }

    BrokerHeartbeatResponseData heartbeat(int id, boolean wantShutDown) {
        long epoch = image.broker(id).orElseThrow().epoch();
        return run(new BrokerHeartbeatRequestData().setBrokerId(id).setBrokerEpoch(epoch)
                .setCurrentMetadataOffset(image.offset()).setWantShutDown(wantShutDown));
    }

    /** Registers and unfences brokers {@code ids}. */
    void brokers(int... ids) {
        for (int id : ids) {
            register(id);
            heartbeat(id);
        }
    }

    CreateTopicsResponseData.CreatableTopicResult createTopic(String name, int partitions, int rf, String... configs) {
        CreateTopicsRequestData req = new CreateTopicsRequestData();
        CreateTopicsRequestData.CreatableTopic t = new CreateTopicsRequestData.CreatableTopic().setName(name)
                .setNumPartitions(partitions).setReplicationFactor((short) rf);
        for (int i = 0; i < configs.length; i += 2) {
            t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName(configs[i]).setValue(configs[i + 1]));
        }
        req.topics().add(t);
        CreateTopicsResponseData resp = run(req);
        return resp.topics().iterator().next();
    }

    Uuid topicId(String name) {
        return image.topic(name).orElseThrow().id();
    }

    PartitionRegistration partition(String topic, int p) {
        return image.topic(topic).orElseThrow().partition(p);
    }

    AlterPartitionResponseData.PartitionData alterIsr(String topic, int p, int leader, int leaderEpoch,
                                                       int partitionEpoch, Integer... isr) {
        AlterPartitionRequestData.PartitionData pd = new AlterPartitionRequestData.PartitionData().setPartitionIndex(p)
                .setLeaderEpoch(leaderEpoch).setPartitionEpoch(partitionEpoch);
        for (int b : isr) {
            pd.newIsrWithEpochs().add(new AlterPartitionRequestData.BrokerState().setBrokerId(b)
                    .setBrokerEpoch(image.broker(b).map(x -> x.epoch()).orElse(-1L)));
        }
        AlterPartitionRequestData req = new AlterPartitionRequestData().setBrokerId(leader)
                .setBrokerEpoch(image.broker(leader).orElseThrow().epoch());
        req.topics().add(new AlterPartitionRequestData.TopicData().setTopicId(topicId(topic)).setPartitions(new ArrayList<>(List.of(pd))));
        AlterPartitionResponseData resp = run(req);
        if (resp.errorCode() != 0) throw new AssertionError("AlterPartition failed: " + Errors.forCode(resp.errorCode()));
        return resp.topics().get(0).partitions().get(0);
    }

    Errors setTopicConfig(String topic, String key, String value) {
        IncrementalAlterConfigsRequestData req = new IncrementalAlterConfigsRequestData();
        IncrementalAlterConfigsRequestData.AlterConfigsResource r = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName(topic);
        r.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName(key).setValue(value)
                .setConfigOperation((byte) (value == null ? 1 : 0)));
        req.resources().add(r);
        IncrementalAlterConfigsResponseData resp = run(req);
        return Errors.forCode(resp.responses().get(0).errorCode());
    }
}
