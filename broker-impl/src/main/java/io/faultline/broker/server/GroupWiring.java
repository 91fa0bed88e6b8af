package io.faultline.broker.server;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.api.GroupApis;
import io.faultline.broker.api.KafkaApis;
import io.faultline.broker.api.OffsetCommitApis;
import io.faultline.broker.group.GroupCoordinator;
import io.faultline.broker.group.OffsetStore;
import java.util.Map;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.ApiKeys;

/** Creates the group coordinator (and its __consumer_offsets topic), registers its APIs; returns its shutdown. */
final class GroupWiring {
    private GroupWiring() {
    }

    static Runnable wire(BrokerContext ctx, KafkaApis apis) {
        BrokerConfig c = ctx.config();
        ctx.topicManager().getOrCreate(Topic.GROUP_METADATA_TOPIC_NAME, c.offsetsTopicPartitions(),
                Map.of("cleanup.policy", "compact", "segment.bytes", "104857600"));
        int partitions = ctx.topics().byName(Topic.GROUP_METADATA_TOPIC_NAME).orElseThrow().partitions();
        GroupCoordinator coordinator = new GroupCoordinator(ctx.time(), c.groupMinSessionTimeoutMs(),
                c.groupMaxSessionTimeoutMs(), c.groupInitialRebalanceDelayMs());
        OffsetStore store = new OffsetStore(ctx.partitions(), partitions, ctx.time());
        store.load().forEach(coordinator::ensureGroup);
        store.loadedGroups().values().forEach(coordinator::restore);
        coordinator.setPersister(store::storeGroup);
        ctx.topicManager().onTopicDeleted(t -> store.removeTopic(t.name()));
        GroupApis groups = new GroupApis(ctx, coordinator);
        OffsetCommitApis offsets = new OffsetCommitApis(ctx, coordinator, store);
        apis.register(ApiKeys.FIND_COORDINATOR, groups::findCoordinator)
                .register(ApiKeys.JOIN_GROUP, groups::joinGroup)
                .register(ApiKeys.SYNC_GROUP, groups::syncGroup)
                .register(ApiKeys.HEARTBEAT, groups::heartbeat)
                .register(ApiKeys.LEAVE_GROUP, groups::leaveGroup)
                .register(ApiKeys.DESCRIBE_GROUPS, groups::describeGroups)
                .register(ApiKeys.LIST_GROUPS, groups::listGroups)
                .register(ApiKeys.OFFSET_COMMIT, offsets::offsetCommit)
                .register(ApiKeys.OFFSET_FETCH, offsets::offsetFetch);
        return coordinator::close;
    }
}
