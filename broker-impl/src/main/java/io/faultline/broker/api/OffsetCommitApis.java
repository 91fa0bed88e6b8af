package io.faultline.broker.api;

import io.faultline.broker.group.GroupCoordinator;
import io.faultline.broker.group.OffsetStore;
import io.faultline.broker.group.OffsetStore.CommittedOffset;
import io.faultline.broker.metadata.TopicImage;
import io.faultline.broker.network.Request;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;

/** OffsetCommit (v2-v10) and OffsetFetch (v1-v10); topics by id from v10. */
public final class OffsetCommitApis {
    private static final short FIRST_TOPIC_ID_VERSION = 10;
    private static final short FIRST_MULTI_GROUP_FETCH_VERSION = 8;
    private static final int MAX_METADATA_BYTES = 4096;

    private final BrokerContext ctx;
    private final GroupCoordinator coordinator;
    private final OffsetStore store;
    private final ReplicatedOffsetCommit replicated;

    public OffsetCommitApis(BrokerContext ctx, GroupCoordinator coordinator, OffsetStore store) {
        this.ctx = ctx;
        this.coordinator = coordinator;
        this.store = store;
        this.replicated = new ReplicatedOffsetCommit(ctx.partitions(), ctx::replicationLeader, store,
                ctx.config().bugs());
    }

    public void offsetCommit(Request r) {
        OffsetCommitRequestData req = r.data();
        boolean byId = r.version() >= FIRST_TOPIC_ID_VERSION;
        OffsetCommitResponseData resp = new OffsetCommitResponseData().setThrottleTimeMs(0);
        Errors groupError = coordinator.validateOffsetCommit(req.groupId(), req.memberId(),
                req.generationIdOrMemberEpoch());
        Map<TopicPartition, CommittedOffset> commits = new LinkedHashMap<>();
        List<OffsetCommitResponseData.OffsetCommitResponsePartition> accepted = new ArrayList<>();
        long now = ctx.time().milliseconds();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
            OffsetCommitResponseData.OffsetCommitResponseTopic rt = new OffsetCommitResponseData.OffsetCommitResponseTopic();
            if (byId) rt.setTopicId(t.topicId());
            else rt.setName(t.name());
            Optional<String> name = byId ? ctx.metadata().image().topic(t.topicId()).map(TopicImage::name) : Optional.of(t.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                OffsetCommitResponseData.OffsetCommitResponsePartition rp =
                        new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex());
                rt.partitions().add(rp);
                if (groupError != Errors.NONE) {
                    rp.setErrorCode(groupError.code());
                } else if (name.isEmpty()) {
                    rp.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                } else if (p.committedMetadata() != null && p.committedMetadata().length() > MAX_METADATA_BYTES) {
                    rp.setErrorCode(Errors.OFFSET_METADATA_TOO_LARGE.code());
                } else {
                    commits.put(new TopicPartition(name.get(), p.partitionIndex()), new CommittedOffset(
                            p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata(), now));
                    accepted.add(rp);
                }
            }
            resp.topics().add(rt);
        }
        try {
            coordinator.ensureGroup(req.groupId());
        } catch (ApiException e) {
            Errors err = Errors.forException(e);
            accepted.forEach(rp -> rp.setErrorCode(err.code()));
            ctx.channel().sendResponse(r, resp);
            return;
        }
        // Answered once replicated (or failed), possibly later on another thread.
        replicated.commit(req.groupId(), commits, err -> {
            if (err != Errors.NONE) accepted.forEach(rp -> rp.setErrorCode(err.code()));
            ctx.channel().sendResponse(r, resp);
        });
    }

    /**
     * Answered once a read barrier per group is replicated (see {@link ReplicatedOffsetCommit#barrier}), so a
     * coordinator that has been replaced without knowing it answers no stale offsets.
     */
    public void offsetFetch(Request r) {
        OffsetFetchRequestData req = r.data();
        List<String> groups = r.version() < FIRST_MULTI_GROUP_FETCH_VERSION ? List.of(req.groupId())
                : req.groups().stream().map(OffsetFetchRequestData.OffsetFetchRequestGroup::groupId).distinct().toList();
        Map<String, Errors> refused = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(groups.size());
        if (groups.isEmpty()) {
            answerFetch(r, refused);
            return;
        }
        for (String g : groups) {
            replicated.barrier(g, err -> {
                if (err != Errors.NONE) refused.put(g, err);
                if (left.decrementAndGet() == 0) answerFetch(r, refused);
            });
        }
    }

    /** OffsetFetch v7 added require_stable (KIP-447). */
    private static final short FIRST_REQUIRE_STABLE_VERSION = 7;

    private void answerFetch(Request r, Map<String, Errors> refused) {
        OffsetFetchRequestData req = r.data();
        short v = r.version();
        OffsetFetchResponseData resp = new OffsetFetchResponseData().setThrottleTimeMs(0);
        if (v < FIRST_MULTI_GROUP_FETCH_VERSION) {
            List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics = null;
            if (req.topics() != null) {
                topics = new ArrayList<>();
                for (OffsetFetchRequestData.OffsetFetchRequestTopic t : req.topics()) {
                    topics.add(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(t.name())
                            .setPartitionIndexes(t.partitionIndexes()));
                }
            }
            OffsetFetchResponseData.OffsetFetchResponseGroup g = fetchGroup(req.groupId(), topics, false, refused,
                    v >= FIRST_REQUIRE_STABLE_VERSION && req.requireStable());
            for (OffsetFetchResponseData.OffsetFetchResponseTopics t : g.topics()) {
                OffsetFetchResponseData.OffsetFetchResponseTopic ot = new OffsetFetchResponseData.OffsetFetchResponseTopic()
                        .setName(t.name());
                for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
                    ot.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                            .setPartitionIndex(p.partitionIndex()).setCommittedOffset(p.committedOffset())
                            .setCommittedLeaderEpoch(p.committedLeaderEpoch()).setMetadata(p.metadata())
                            .setErrorCode(p.errorCode()));
                }
                resp.topics().add(ot);
            }
            resp.setErrorCode(g.errorCode());
        } else {
            for (OffsetFetchRequestData.OffsetFetchRequestGroup g : req.groups()) {
                resp.groups().add(fetchGroup(g.groupId(), g.topics(), v >= FIRST_TOPIC_ID_VERSION, refused,
                        req.requireStable()));
            }
        }
        ctx.channel().sendResponse(r, resp);
    }

    private OffsetFetchResponseData.OffsetFetchResponseGroup fetchGroup(
            String groupId, List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics, boolean byId,
            Map<String, Errors> refused, boolean requireStable) {
        OffsetFetchResponseData.OffsetFetchResponseGroup out = new OffsetFetchResponseData.OffsetFetchResponseGroup()
                .setGroupId(groupId).setErrorCode(Errors.NONE.code());
        if (refused.containsKey(groupId)) return out.setErrorCode(refused.get(groupId).code());
        try {
            // Not while loading: a view older than the log's tail would contradict acknowledged commits.
            store.checkReadable(groupId);
        } catch (ApiException e) {
            return out.setErrorCode(Errors.forException(e).code());
        }
        if (topics == null) { // all committed offsets of the group
            Map<String, OffsetFetchResponseData.OffsetFetchResponseTopics> byTopic = new LinkedHashMap<>();
            store.fetchAll(groupId).forEach((tp, c) -> {
                OffsetFetchResponseData.OffsetFetchResponseTopics t = byTopic.computeIfAbsent(tp.topic(), n -> {
                    OffsetFetchResponseData.OffsetFetchResponseTopics x = new OffsetFetchResponseData.OffsetFetchResponseTopics();
                    if (byId) x.setTopicId(ctx.metadata().image().topic(n).map(TopicImage::id).orElse(org.apache.kafka.common.Uuid.ZERO_UUID));
                    else x.setName(n);
                    return x;
                });
                t.partitions().add(partition(tp.partition(), Optional.of(c)));
            });
            out.topics().addAll(byTopic.values());
            return out;
        }
        for (OffsetFetchRequestData.OffsetFetchRequestTopics t : topics) {
            OffsetFetchResponseData.OffsetFetchResponseTopics ot = new OffsetFetchResponseData.OffsetFetchResponseTopics();
            Optional<String> name;
            if (byId) {
                ot.setTopicId(t.topicId());
                name = ctx.metadata().image().topic(t.topicId()).map(TopicImage::name);
            } else {
                ot.setName(t.name());
                name = Optional.of(t.name());
            }
            for (int p : t.partitionIndexes()) {
                if (name.isEmpty()) {
                    ot.partitions().add(partition(p, Optional.empty()).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                } else if (requireStable && store.hasPendingCommit(groupId, new TopicPartition(name.get(), p))) {
                    // A read_committed consumer waits for a transaction's offsets rather than start from older ones.
                    ot.partitions().add(partition(p, Optional.empty()).setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code()));
                } else {
                    ot.partitions().add(partition(p, store.fetch(groupId, new TopicPartition(name.get(), p))));
                }
            }
            out.topics().add(ot);
        }
        return out;
    }

    private static OffsetFetchResponseData.OffsetFetchResponsePartitions partition(int p, Optional<CommittedOffset> c) {
        return new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(p)
                .setCommittedOffset(c.map(CommittedOffset::offset).orElse(-1L))
                .setCommittedLeaderEpoch(c.map(CommittedOffset::leaderEpoch).orElse(-1))
                .setMetadata(c.map(CommittedOffset::metadata).orElse("")).setErrorCode(Errors.NONE.code());
    }
}
