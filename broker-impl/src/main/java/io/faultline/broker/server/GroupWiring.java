package io.faultline.broker.server;

import io.faultline.broker.api.GroupAdminApis;
import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.api.GroupApis;
import io.faultline.broker.api.KafkaApis;
import io.faultline.broker.api.OffsetCommitApis;
import io.faultline.broker.api.OffsetsTopic;
import io.faultline.broker.group.GroupCoordinator;
import io.faultline.broker.group.OffsetStore;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.network.Request;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator of this node and its APIs. A node coordinates the groups whose {@code __consumer_offsets}
 * partition it leads (others get NOT_COORDINATOR); their state is replayed from that partition when the node
 * catches up at startup and again whenever it becomes the partition's leader.
 */
final class GroupWiring implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GroupWiring.class);

    private final BrokerContext base;
    private final GroupCoordinator coordinator;
    private final OffsetStore store;
    private final OffsetsTopic offsetsTopic;
    private volatile boolean loaded;

    GroupWiring(BrokerContext base) {
        this.base = base;
        this.coordinator = new GroupCoordinator(base.time(), base.config().groupMinSessionTimeoutMs(),
                base.config().groupMaxSessionTimeoutMs(), base.config().groupInitialRebalanceDelayMs());
        this.offsetsTopic = new OffsetsTopic(base);
        this.store = new OffsetStore(base.partitions(), offsetsTopic.partitions(), base.time());
        coordinator.setPersister(store::storeGroup);
    }

    /** Replays the local offsets partitions once this node's metadata has caught up; group APIs wait until then. */
    void load() {
        store.load().forEach(coordinator::ensureGroup);
        store.loadedGroups().values().forEach(this::restore);
        loaded = true;
    }

    /** The committed-offsets store (transactional offset commits and their markers go through it). */
    OffsetStore store() {
        return store;
    }

    /** Records of {@code __consumer_offsets} the loads skipped as malformed. */
    long malformedRecords() {
        return store.malformedRecords();
    }

    /** A persisted group that cannot be restored starts empty instead of stopping the node. */
    private void restore(io.faultline.broker.group.GroupRecord g) {
        try {
            coordinator.restore(g);
        } catch (RuntimeException e) {
            log.warn("Cannot restore group {} from its persisted state; it starts empty: {}", g.groupId(), e.toString());
        }
    }

    /** Asks the controller for {@code __consumer_offsets} unless it exists (or too few brokers are alive yet). */
    void ensureOffsetsTopic() {
        offsetsTopic.ensureExists();
    }

    /** On the metadata thread: deleted topics lose their committed offsets; newly led offsets partitions reload. */
    void onMetadata(MetadataDelta delta) {
        delta.deletedTopics().values().forEach(t -> store.removeTopic(t.name()));
        if (!loaded) return;
        delta.localChanges(base.nodeId()).leaders().forEach((tip, reg) -> {
            if (!tip.topic().equals(Topic.GROUP_METADATA_TOPIC_NAME)) return;
            boolean wasLeader = delta.before().topic(tip.topicId()).map(t -> t.partition(tip.partition()))
                    .map(p -> p.leader() == base.nodeId()).orElse(false);
            // A new term (even with the same leader) reloads: the view must be rebuilt from this term's log.
            if (wasLeader && store.loadedAt(tip.partition(), reg.leaderEpoch())) return;
            for (String g : store.loadPartition(tip.partition())) coordinator.ensureGroup(g);
            store.loadedGroups().values().stream().filter(g -> offsetsTopic.partitionFor(g.groupId()) == tip.partition())
                    .forEach(this::restore);
            log.info("Now coordinating the groups of {}-{}", tip.topic(), tip.partition());
        });
    }

    /** Registers the group APIs of one listener. */
    void register(BrokerContext ctx, KafkaApis apis) {
        GroupApis groups = new GroupApis(ctx, coordinator, new OffsetsTopic(ctx));
        OffsetCommitApis offsets = new OffsetCommitApis(ctx, coordinator, store);
        apis.register(ApiKeys.FIND_COORDINATOR, groups::findCoordinator)
                .register(ApiKeys.JOIN_GROUP, coordinated(ctx, r -> List.of(((JoinGroupRequestData) r.data()).groupId()), groups::joinGroup))
                .register(ApiKeys.SYNC_GROUP, coordinated(ctx, r -> List.of(((SyncGroupRequestData) r.data()).groupId()), groups::syncGroup))
                .register(ApiKeys.HEARTBEAT, coordinated(ctx, r -> List.of(((HeartbeatRequestData) r.data()).groupId()), groups::heartbeat))
                .register(ApiKeys.LEAVE_GROUP, coordinated(ctx, r -> List.of(((LeaveGroupRequestData) r.data()).groupId()), groups::leaveGroup))
                .register(ApiKeys.DESCRIBE_GROUPS, coordinated(ctx, r -> ((DescribeGroupsRequestData) r.data()).groups(), groups::describeGroups))
                .register(ApiKeys.LIST_GROUPS, groups::listGroups)
                .register(ApiKeys.OFFSET_COMMIT, coordinated(ctx, r -> List.of(((OffsetCommitRequestData) r.data()).groupId()), offsets::offsetCommit))
                .register(ApiKeys.OFFSET_FETCH, coordinated(ctx, GroupWiring::offsetFetchGroups, offsets::offsetFetch));
        GroupAdminApis groupAdmin = new GroupAdminApis(ctx, coordinator, store);
        apis.register(ApiKeys.DELETE_GROUPS, coordinated(ctx,
                        r -> ((org.apache.kafka.common.message.DeleteGroupsRequestData) r.data()).groupsNames(),
                        groupAdmin::deleteGroups))
                .register(ApiKeys.OFFSET_DELETE, coordinated(ctx,
                        r -> List.of(((org.apache.kafka.common.message.OffsetDeleteRequestData) r.data()).groupId()),
                        groupAdmin::offsetDelete));
    }

    private static List<String> offsetFetchGroups(Request r) {
        OffsetFetchRequestData d = r.data();
        if (r.version() < 8) return List.of(d.groupId());
        return d.groups().stream().map(OffsetFetchRequestData.OffsetFetchRequestGroup::groupId).toList();
    }

    /** Serves a group request only where the group is coordinated, and only once its state is loaded. */
    private Consumer<Request> coordinated(BrokerContext ctx, Function<Request, List<String>> groupsOf,
                                          Consumer<Request> handler) {
        return r -> {
            if (!loaded && r.apiKey() == ApiKeys.HEARTBEAT) {
                // As Kafka: a heartbeat during loading is fine (an error would make the member rejoin).
                ctx.channel().sendResponse(r, new org.apache.kafka.common.message.HeartbeatResponseData());
                return;
            }
            if (!loaded) {
                ctx.channel().sendResponse(r, r.body().getErrorResponse(0,
                        new CoordinatorLoadInProgressException("node " + ctx.nodeId() + " is still loading")).data());
                return;
            }
            for (String g : groupsOf.apply(r)) {
                if (!offsetsTopic.coordinates(g)) {
                    ctx.channel().sendResponse(r, r.body().getErrorResponse(0, new NotCoordinatorException(
                            "node " + ctx.nodeId() + " does not lead the offsets partition of group " + g)).data());
                    return;
                }
            }
            handler.accept(r);
        };
    }

    @Override
    public void close() {
        coordinator.close();
    }
}
