package io.faultline.broker.replication;

import io.faultline.broker.common.Scheduler;
import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionRole;
import io.faultline.broker.partition.RoleChangeListener;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's replicas (Kafka's ReplicaManager, replication half): turns committed leader/follower decisions into
 * partition roles plus leader state or fetching, answers followers ({@link #requestHandler()}), and runs the
 * ISR-shrink check every replica.lag.time.max.ms / 2 on the injected scheduler. Registered as the
 * {@link RoleChangeListener} of the partition manager, it follows every role committed metadata gives.
 */
public final class ReplicaManager implements RoleChangeListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

    private record Entry(Partition partition, PartitionReplication replication) {
    }

    private final int localId;
    private final Time time;
    private final ReplicationConfig config;
    private final ReplicaFetcherManager fetchers;
    private final IsrChangeSender isrSender;
    private final Map<TopicPartition, Entry> entries = new ConcurrentHashMap<>();
    private final ReplicaRequestHandler handler;
    private final int defaultMinInsyncReplicas;
    private volatile java.util.function.IntPredicate eligibleForIsr = id -> true;
    private Scheduler.Cancellable shrinkTask;

    public ReplicaManager(int localId, Time time, ReplicaFetcherManager fetchers, IsrChangeSender isrSender,
                          Function<Uuid, Optional<String>> topicNames, int defaultMinInsyncReplicas) {
        this.localId = localId;
        this.defaultMinInsyncReplicas = defaultMinInsyncReplicas;
        this.time = time;
        this.config = fetchers.config();
        this.fetchers = fetchers;
        this.isrSender = isrSender;
        this.handler = new ReplicaRequestHandler(ReplicaRequestHandler.of(this::leader, topicNames));
    }

    /** Brokers that may join an ISR now, from the metadata image (unfenced, not shutting down). */
    public void setEligibleForIsr(java.util.function.IntPredicate eligible) {
        this.eligibleForIsr = eligible;
    }

    /** Starts the periodic ISR-shrink check. */
    public synchronized void startup() {
        long period = Math.max(1, config.replicaLagTimeMaxMs() / 2);
        shrinkTask = time.scheduler().scheduleWithFixedDelay("isr-expiration-" + localId, this::maybeShrinkIsrs,
                period, period);
    }

    public ReplicationConfig config() {
        return config;
    }

    public ReplicaFetcherManager fetchers() {
        return fetchers;
    }

    public ReplicaRequestHandler requestHandler() {
        return handler;
    }

    /** Sets the leader role on {@code p} and starts its leadership (tests without a metadata image). */
    public LeaderState becomeLeader(Partition p, List<Integer> replicas, Set<Integer> isr, int leaderEpoch,
                                    int partitionEpoch, int minInsyncReplicas) {
        p.makeLeader(leaderEpoch, partitionEpoch, replicas, isr);
        lead(p, minInsyncReplicas);
        return leader(p.topicPartition()).orElseThrow();
    }

    /** Sets the follower role on {@code p} and starts fetching (tests without a metadata image). */
    public void becomeFollower(Partition p, int leaderEpoch, int partitionEpoch, int leaderId, List<Integer> replicas,
                               Set<Integer> isr) {
        p.makeFollower(leaderEpoch, partitionEpoch, leaderId, replicas, isr);
        follow(p);
    }

    @Override
    public void onLeader(Partition p, MetadataImage image) {
        lead(p, minInsyncReplicas(p, image));
    }

    /** min.insync.replicas changed with AlterConfigs: a running leadership uses the new value from now on. */
    @Override
    public void onConfigChanged(Partition p, MetadataImage image) {
        leader(p.topicPartition()).ifPresent(l -> l.setMinInsyncReplicas(minInsyncReplicas(p, image)));
    }

    private int minInsyncReplicas(Partition p, MetadataImage image) {
        String v = image.topicConfig(p.topicPartition().topic()).get("min.insync.replicas");
        // else the dynamic broker value (this broker's, then the cluster-wide default), as Kafka's log config does
        if (v == null) v = image.brokerConfig(Integer.toString(localId)).get("min.insync.replicas");
        if (v == null) v = image.brokerConfig("").get("min.insync.replicas");
        return v == null ? defaultMinInsyncReplicas : Integer.parseInt(v.trim());
    }

    @Override
    public void onFollower(Partition p, MetadataImage image) {
        follow(p);
    }

    @Override
    public void onRemoved(TopicPartition tp) {
        remove(tp);
    }

    /** A new leadership starts a new leader state; the same one with a newer ISR only updates it. */
    private void lead(Partition p, int minIsr) {
        if (!(p.role() instanceof PartitionRole.Leader role)) throw new IllegalStateException(p + " is not leader");
        Entry e = entry(p);
        synchronized (e) {
            Optional<LeaderState> current = e.replication().leader();
            if (current.isPresent() && current.get().leaderEpoch() == role.leaderEpoch()) {
                current.get().onCommittedIsr(role.isr(), role.partitionEpoch());
                return;
            }
            LeaderState ls = e.replication().becomeLeader(new LeaderState.Assignment(p.topicPartition(), p.topicId(),
                    role.leaderEpoch(), role.replicas(), role.isr(), role.partitionEpoch(), minIsr));
            ls.setEligibleForIsr(id -> eligibleForIsr.test(id));
        }
    }

    private void follow(Partition p) {
        if (!(p.role() instanceof PartitionRole.Follower role)) throw new IllegalStateException(p + " is not follower");
        Entry e = entry(p);
        synchronized (e) {
            if (e.replication().isFollowing(role.leaderEpoch(), role.leaderId())) return;
            e.replication().becomeFollower(role.leaderEpoch(), role.leaderId());
        }
    }

    /** Same leadership, new committed ISR (partition epoch) from metadata. */
    public void onCommittedIsr(TopicPartition tp, Set<Integer> isr, int partitionEpoch) {
        leader(tp).ifPresent(l -> l.onCommittedIsr(isr, partitionEpoch));
    }

    /** The partition is deleted or no longer hosted here. */
    public void remove(TopicPartition tp) {
        Entry e = entries.remove(tp);
        if (e != null) e.replication().stop();
    }

    public Optional<LeaderState> leader(TopicPartition tp) {
        Entry e = entries.get(tp);
        return e == null ? Optional.empty() : e.replication().leader();
    }

    /**
     * Brokers were fenced, unfenced or began shutting down: each leadership re-checks now, so an ineligible
     * follower is neither waited for by the high watermark nor kept in the ISR for the whole lag time.
     */
    public void onBrokersChanged() {
        maybeShrinkIsrs();
    }

    /** One round of the shrink check over every leadership (also called by tests). */
    public void maybeShrinkIsrs() {
        for (Entry e : entries.values()) {
            try {
                e.replication().leader().ifPresent(LeaderState::maybeShrinkIsr);
            } catch (RuntimeException ex) {
                log.error("ISR check of {} failed", e.partition().topicPartition(), ex);
            }
        }
    }

    private Entry entry(Partition p) {
        return entries.computeIfAbsent(p.topicPartition(), tp -> {
            PartitionReplication r = new PartitionReplication(localId, tp, p.topicId(), ReplicaLog.of(p), time,
                    fetchers, isrSender, p::wakeWaiters);
            p.replicateWith(() -> r.leader().ifPresent(LeaderState::onLeaderAppend));
            return new Entry(p, r);
        });
    }

    @Override
    public synchronized void close() {
        if (shrinkTask != null) shrinkTask.cancel();
        fetchers.close();
        for (Entry e : entries.values()) e.replication().stop();
    }
}
