package io.faultline.broker.api;

import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.Optional;
import org.apache.kafka.common.internals.Topic;

import io.faultline.broker.group.GroupCoordinator;
import io.faultline.broker.network.Request;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/** FindCoordinator, the classic group membership APIs, DescribeGroups and ListGroups. */
public final class GroupApis {
    /** FindCoordinator key types. */
    private static final byte KEY_TYPE_GROUP = 0;

    private final BrokerContext ctx;
    private final GroupCoordinator coordinator;
    private final OffsetsTopic offsetsTopic;

    public GroupApis(BrokerContext ctx, GroupCoordinator coordinator, OffsetsTopic offsetsTopic) {
        this.ctx = ctx;
        this.offsetsTopic = offsetsTopic;
        this.coordinator = coordinator;
    }

    /**
     * The coordinator of a group is the leader of the group's {@code __consumer_offsets} partition, from the metadata
     * image. A missing offsets topic is created through the controller (RF min(3, live brokers)), and the client told
     * to retry meanwhile.
     */
    public void findCoordinator(Request r) {
        FindCoordinatorRequestData req = r.data();
        FindCoordinatorResponseData resp = new FindCoordinatorResponseData().setThrottleTimeMs(0);
        boolean group = req.keyType() == KEY_TYPE_GROUP;
        if (r.version() < 4) {
            Coordinator c = group ? locate(req.key()) : new Coordinator(Errors.COORDINATOR_NOT_AVAILABLE, -1, null);
            resp.setErrorCode(c.error().code()).setNodeId(c.nodeId()).setHost(c.host()).setPort(c.port());
            if (r.version() >= 1) resp.setErrorMessage(group ? null : "Transactions are not supported");
        } else {
            for (String key : req.coordinatorKeys()) {
                Coordinator c = group ? locate(key) : new Coordinator(Errors.COORDINATOR_NOT_AVAILABLE, -1, null);
                resp.coordinators().add(new FindCoordinatorResponseData.Coordinator().setKey(key)
                        .setErrorCode(c.error().code()).setNodeId(c.nodeId()).setHost(c.host()).setPort(c.port()));
            }
        }
        ctx.channel().sendResponse(r, resp);
    }

    private record Coordinator(Errors error, int nodeId, Endpoint endpoint) {
        String host() {
            return endpoint == null ? "" : endpoint.host();
        }

        int port() {
            return endpoint == null ? -1 : endpoint.port();
        }
    }

    private Coordinator locate(String groupId) {
        MetadataImage img = ctx.metadata().image();
        Optional<TopicImage> offsets = img.topic(Topic.GROUP_METADATA_TOPIC_NAME);
        if (offsets.isEmpty()) {
            offsetsTopic.ensureExists();
            return new Coordinator(Errors.COORDINATOR_NOT_AVAILABLE, -1, null);
        }
        PartitionRegistration p = offsets.get().partition(offsetsTopic.partitionFor(groupId));
        Endpoint e = p == null || !p.hasLeader() ? null : img.broker(p.leader())
                .filter(b -> !b.fenced()).map(b -> b.endpoints().get(ctx.listenerName())).orElse(null);
        if (e == null) return new Coordinator(Errors.COORDINATOR_NOT_AVAILABLE, -1, null);
        return new Coordinator(Errors.NONE, p.leader(), e);
    }

    public void joinGroup(Request r) {
        JoinGroupRequestData req = r.data();
        short v = r.version();
        Map<String, byte[]> protocols = new LinkedHashMap<>();
        req.protocols().forEach(p -> protocols.put(p.name(), p.metadata()));
        int rebalanceTimeout = v >= 1 ? req.rebalanceTimeoutMs() : req.sessionTimeoutMs();
        coordinator.join(req.groupId(), req.memberId(), req.groupInstanceId(), r.header().clientId(), r.clientHost(),
                req.sessionTimeoutMs(), rebalanceTimeout, req.protocolType(), protocols, v >= 4, res -> {
                    JoinGroupResponseData resp = new JoinGroupResponseData().setThrottleTimeMs(0)
                            .setErrorCode(res.error().code()).setGenerationId(res.generationId())
                            .setLeader(res.leaderId() == null ? "" : res.leaderId()).setMemberId(res.memberId());
                    if (v >= 7) resp.setProtocolType(res.protocolType()).setProtocolName(res.protocolName());
                    else resp.setProtocolName(res.protocolName() == null ? "" : res.protocolName());
                    for (GroupCoordinator.MemberInfo m : res.members()) {
                        resp.members().add(new JoinGroupResponseData.JoinGroupResponseMember().setMemberId(m.memberId())
                                .setGroupInstanceId(m.groupInstanceId()).setMetadata(m.metadata()));
                    }
                    ctx.channel().sendResponse(r, resp);
                });
    }

    public void syncGroup(Request r) {
        SyncGroupRequestData req = r.data();
        short v = r.version();
        Map<String, byte[]> assignments = new HashMap<>();
        req.assignments().forEach(a -> assignments.put(a.memberId(), a.assignment()));
        coordinator.sync(req.groupId(), req.memberId(), req.generationId(), v >= 5 ? req.protocolType() : null,
                v >= 5 ? req.protocolName() : null, assignments, res -> {
                    SyncGroupResponseData resp = new SyncGroupResponseData().setThrottleTimeMs(0)
                            .setErrorCode(res.error().code()).setAssignment(res.assignment());
                    if (v >= 5) resp.setProtocolType(res.protocolType()).setProtocolName(res.protocolName());
                    ctx.channel().sendResponse(r, resp);
                });
    }

    public void heartbeat(Request r) {
        HeartbeatRequestData req = r.data();
        Errors e = coordinator.heartbeat(req.groupId(), req.memberId(), req.generationId());
        ctx.channel().sendResponse(r, new HeartbeatResponseData().setThrottleTimeMs(0).setErrorCode(e.code()));
    }

    public void leaveGroup(Request r) {
        LeaveGroupRequestData req = r.data();
        LeaveGroupResponseData resp = new LeaveGroupResponseData().setThrottleTimeMs(0);
        if (r.version() < 3) {
            resp.setErrorCode(coordinator.leave(req.groupId(), req.memberId()).code());
        } else {
            for (LeaveGroupRequestData.MemberIdentity m : req.members()) {
                Errors e = coordinator.leave(req.groupId(), m.memberId());
                resp.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(m.memberId())
                        .setGroupInstanceId(m.groupInstanceId()).setErrorCode(e.code()));
            }
            resp.setErrorCode(Errors.NONE.code());
        }
        ctx.channel().sendResponse(r, resp);
    }

    public void describeGroups(Request r) {
        DescribeGroupsRequestData req = r.data();
        short v = r.version();
        DescribeGroupsResponseData resp = new DescribeGroupsResponseData().setThrottleTimeMs(0);
        for (String id : req.groups()) {
            Optional<GroupCoordinator.GroupSummary> g = coordinator.describe(id);
            DescribeGroupsResponseData.DescribedGroup dg = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(id).setAuthorizedOperations(Integer.MIN_VALUE);
            if (g.isEmpty()) {
                dg.setGroupState("Dead").setProtocolType("").setProtocolData("")
                        .setErrorCode((v >= 6 ? Errors.GROUP_ID_NOT_FOUND : Errors.NONE).code());
            } else {
                GroupCoordinator.GroupSummary s = g.get();
                dg.setErrorCode(Errors.NONE.code()).setGroupState(s.state()).setProtocolType(s.protocolType())
                        .setProtocolData(s.protocolName());
                for (GroupCoordinator.MemberSummary m : s.members()) {
                    dg.members().add(new DescribeGroupsResponseData.DescribedGroupMember().setMemberId(m.memberId())
                            .setGroupInstanceId(m.groupInstanceId()).setClientId(m.clientId())
                            .setClientHost(m.clientHost()).setMemberMetadata(m.metadata())
                            .setMemberAssignment(m.assignment()));
                }
            }
            resp.groups().add(dg);
        }
        ctx.channel().sendResponse(r, resp);
    }

    public void listGroups(Request r) {
        ListGroupsRequestData req = r.data();
        short v = r.version();
        ListGroupsResponseData resp = new ListGroupsResponseData().setThrottleTimeMs(0).setErrorCode(Errors.NONE.code());
        List<String> states = v >= 4 ? req.statesFilter() : List.of();
        List<String> types = v >= 5 ? req.typesFilter() : List.of();
        for (GroupCoordinator.GroupSummary g : coordinator.list()) {
            if (!states.isEmpty() && states.stream().noneMatch(s -> s.equalsIgnoreCase(g.state()))) continue;
            if (!types.isEmpty() && types.stream().noneMatch(t -> t.equalsIgnoreCase("classic"))) continue;
            ListGroupsResponseData.ListedGroup lg = new ListGroupsResponseData.ListedGroup().setGroupId(g.groupId())
                    .setProtocolType(g.protocolType());
            if (v >= 4) lg.setGroupState(g.state());
            if (v >= 5) lg.setGroupType("classic");
            resp.groups().add(lg);
        }
        ctx.channel().sendResponse(r, resp);
    }
}
