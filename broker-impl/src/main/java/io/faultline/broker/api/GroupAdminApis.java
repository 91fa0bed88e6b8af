package io.faultline.broker.api;

import io.faultline.broker.group.GroupCoordinator;
import io.faultline.broker.group.OffsetStore;
import io.faultline.broker.network.Request;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteGroups and OffsetDelete (what {@code kafka-consumer-groups --delete / --delete-offsets} send), on the group
 * coordinator's side: this broker coordinates every group.
 */
public final class GroupAdminApis {
    private final BrokerContext ctx;
    private final GroupCoordinator coordinator;
    private final OffsetStore store;

    public GroupAdminApis(BrokerContext ctx, GroupCoordinator coordinator, OffsetStore store) {
        this.ctx = ctx;
        this.coordinator = coordinator;
        this.store = store;
    }

    /** Each group: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP while it has members, or deleted with its offsets. */
    public void deleteGroups(Request r) {
        DeleteGroupsRequestData req = r.data();
        DeleteGroupsResponseData resp = new DeleteGroupsResponseData().setThrottleTimeMs(0);
        for (String groupId : req.groupsNames()) {
            if (resp.results().find(groupId) != null) continue; // a name listed twice is answered once
            Errors e;
            try {
                e = groupId == null || groupId.isEmpty() ? Errors.INVALID_GROUP_ID
                        : coordinator.deleteGroup(groupId, () -> store.deleteGroup(groupId));
            } catch (ApiException ex) {
                e = Errors.forException(ex);
            }
            resp.results().add(new DeletableGroupResult().setGroupId(groupId).setErrorCode(e.code()));
        }
        ctx.channel().sendResponse(r, resp);
    }

    /**
     * Offsets of partitions the group's members do not consume are deleted; those of consumed topics answer
     * GROUP_SUBSCRIBED_TO_TOPIC; unknown topics UNKNOWN_TOPIC_OR_PARTITION. The group must exist, and a non-consumer
     * group must be empty.
     */
    public void offsetDelete(Request r) {
        OffsetDeleteRequestData req = r.data();
        OffsetDeleteResponseData resp = new OffsetDeleteResponseData().setThrottleTimeMs(0);
        GroupCoordinator.Subscriptions subs = coordinator.subscriptions(req.groupId());
        if (subs.error() != Errors.NONE) {
            ctx.channel().sendResponse(r, resp.setErrorCode(subs.error().code()));
            return;
        }
        List<TopicPartition> deletable = new ArrayList<>();
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : req.topics()) {
            OffsetDeleteResponseTopic rt = new OffsetDeleteResponseTopic().setName(t.name());
            boolean known = t.name() != null && ctx.metadata().image().topic(t.name()).isPresent();
            for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                if (rt.partitions().find(p.partitionIndex()) != null) continue;
                Errors e;
                if (!known) e = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                else if (subs.consumes(t.name())) e = Errors.GROUP_SUBSCRIBED_TO_TOPIC;
                else {
                    e = Errors.NONE;
                    deletable.add(new TopicPartition(t.name(), p.partitionIndex()));
                }
                rt.partitions().add(new OffsetDeleteResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(e.code()));
            }
            if (resp.topics().find(rt.name()) == null) resp.topics().add(rt);
        }
        try {
            store.deleteOffsets(req.groupId(), deletable);
        } catch (ApiException e) {
            resp.setErrorCode(Errors.forException(e).code()).topics().clear();
        }
        ctx.channel().sendResponse(r, resp);
    }
}
