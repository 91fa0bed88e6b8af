package io.faultline.broker.api;

import io.faultline.broker.controller.ControllerNode;
import io.faultline.broker.network.Request;
import io.faultline.broker.network.RequestChannel;
import io.faultline.broker.network.RequestDispatcher;
import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller listener: brokers' BrokerRegistration, BrokerHeartbeat and AlterPartition, and the client requests
 * brokers forward (CreateTopics, DeleteTopics, CreatePartitions, configs), all handed to this node's
 * {@link ControllerNode}, which answers NOT_CONTROLLER unless it is the active controller.
 */
public final class ControllerApis implements RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(ControllerApis.class);

    /** What the controller listener serves (with ApiVersions, so Kafka tools can connect). */
    public static final Set<ApiKeys> SERVED = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.BROKER_REGISTRATION,
            ApiKeys.BROKER_HEARTBEAT, ApiKeys.ALTER_PARTITION, ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS,
            ApiKeys.CREATE_PARTITIONS, ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.ALTER_CONFIGS,
            ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.ELECT_LEADERS, ApiKeys.DESCRIBE_QUORUM);

    private final RequestChannel channel;
    private final ControllerNode controller;

    /** Connection id → the broker (id, epoch) whose heartbeats it carries: its close may mean that broker died. */
    private final java.util.Map<String, long[]> heartbeatsOn = new java.util.concurrent.ConcurrentHashMap<>();

    public ControllerApis(RequestChannel channel, ControllerNode controller) {
        this.channel = channel;
        this.controller = controller;
        channel.onConnectionClosed(id -> {
            long[] broker = heartbeatsOn.remove(id);
            if (broker != null) controller.connectionLost((int) broker[0], broker[1]);
        });
    }

    public static boolean isSupported(ApiKeys api, short version) {
        return SERVED.contains(api) && version >= api.oldestVersion() && version <= api.latestVersion(false);
    }

    @Override
    public void handle(Request r) {
        if (r.apiKey() == ApiKeys.API_VERSIONS) {
            ApiVersionsResponseData resp = FeatureApis.withFeatures(new ApiVersionsResponseData())
                    .setErrorCode(Errors.NONE.code());
            for (ApiKeys k : SERVED) {
                resp.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(k.id)
                        .setMinVersion(k.oldestVersion()).setMaxVersion(k.latestVersion(false)));
            }
            channel.sendResponse(r, resp);
            return;
        }
        if (r.body() == null || !SERVED.contains(r.apiKey())) {
            channel.closeConnection(r);
            return;
        }
        if (r.body().data() instanceof org.apache.kafka.common.message.BrokerHeartbeatRequestData hb) {
            heartbeatsOn.put(r.connectionId(), new long[] {hb.brokerId(), hb.brokerEpoch()});
        }
        controller.handle(r.header(), r.body().data()).whenComplete((resp, e) -> {
            if (e == null) {
                channel.sendResponse(r, resp);
            } else {
                log.warn("Controller failed on {}: {}", r, e.toString());
                channel.sendResponse(r, r.body().getErrorResponse(0, e).data());
            }
        });
    }
}
