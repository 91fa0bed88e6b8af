package io.faultline.broker.replication;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.Time;
import io.faultline.broker.network.RateLimitedLog;
import io.faultline.broker.storage.EpochEndOffset;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulls the partitions this node follows from one source broker (Kafka's ReplicaFetcherThread): one Fetch at a
 * time with replica id, current leader epoch and last fetched epoch; appends the leader's batches with their
 * offsets and epochs; takes the leader's high watermark; truncates on a diverging-epoch answer; backs off a
 * partition after an error. {@link #doWork()} is one round, so tests drive it on a manual clock; a
 * {@link ReplicaFetcherManager} thread calls it in a loop.
 *
 * <p>Thread-safety: partition changes and response handling hold this object's lock; the network call does not,
 * and a response for a partition that was removed or re-added meanwhile is dropped.
 */
public final class ReplicaFetcher {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcher.class);
    static final short FETCH_VERSION = ApiKeys.FETCH.latestVersion(false);
    static final short LIST_OFFSETS_VERSION = ApiKeys.LIST_OFFSETS.latestVersion(false);
    /** A partition stuck on one diverging answer is reported at most once per this interval (with a count). */
    static final long REPEATED_DIVERGENCE_LOG_INTERVAL_MS = 30_000;

    /** What happened to a partition in the last round (for tests and logs). */
    public enum Status { FETCHING, DELAYED, FENCED, FAILED }

    /** One followed partition; replaced (not mutated) when re-added, so stale responses are recognised. */
    private static final class PartitionFetchState {
        final TopicPartition tp;
        final Uuid topicId;
        final ReplicaLog log;
        final int currentLeaderEpoch;
        long delayedUntilMs;
        Status status = Status.FETCHING;
        Errors lastError = Errors.NONE;
        /** The last diverging answer and the log it was applied to, to recognise an answer that changed nothing. */
        Divergence lastDivergence;
        /** Diverging answers identical to the one before, with our log unchanged in between (a livelock). */
        long repeatedDivergences;

        PartitionFetchState(TopicPartition tp, Uuid topicId, ReplicaLog log, int currentLeaderEpoch) {
            this.tp = tp;
            this.topicId = topicId;
            this.log = log;
            this.currentLeaderEpoch = currentLeaderEpoch;
        }
    }

    private final int localId;
    private final int sourceBrokerId;
    private final LeaderEndpoint endpoint;
    private final Time time;
    private final ReplicationConfig config;
    private final Map<TopicPartition, PartitionFetchState> partitions = new LinkedHashMap<>();
    private final RateLimitedLog repeatedDivergenceLog;

    /** A diverging answer and what we had asked with: the same again means our truncation did not help. */
    private record Divergence(int epoch, long endOffset, long fetchOffset, int lastFetchedEpoch) {
    }

    public ReplicaFetcher(int localId, int sourceBrokerId, LeaderEndpoint endpoint, Time time, ReplicationConfig config) {
        this.localId = localId;
        this.sourceBrokerId = sourceBrokerId;
        this.endpoint = endpoint;
        this.time = time;
        this.config = config;
        this.repeatedDivergenceLog = new RateLimitedLog(log, time, REPEATED_DIVERGENCE_LOG_INTERVAL_MS);
    }

    public int sourceBrokerId() {
        return sourceBrokerId;
    }

    /** Starts following {@code tp} led by the source broker in {@code leaderEpoch}, from the log end. */
    public synchronized void addPartition(TopicPartition tp, Uuid topicId, ReplicaLog replicaLog, int leaderEpoch) {
        partitions.put(tp, new PartitionFetchState(tp, topicId, replicaLog, leaderEpoch));
    }

    public synchronized boolean removePartition(TopicPartition tp) {
        return partitions.remove(tp) != null;
    }

    public synchronized boolean isEmpty() {
        return partitions.isEmpty();
    }

    public synchronized Optional<Status> status(TopicPartition tp) {
        PartitionFetchState s = partitions.get(tp);
        return s == null ? Optional.empty() : Optional.of(s.status);
    }

    /**
     * How many diverging answers for {@code tp} repeated the previous one while our log stayed the same: each is a
     * round of a replication livelock (0 when every truncation moved the fetch on).
     */
    public synchronized Optional<Long> repeatedDivergences(TopicPartition tp) {
        PartitionFetchState s = partitions.get(tp);
        return s == null ? Optional.empty() : Optional.of(s.repeatedDivergences);
    }

    public synchronized Optional<Errors> lastError(TopicPartition tp) {
        PartitionFetchState s = partitions.get(tp);
        return s == null ? Optional.empty() : Optional.of(s.lastError);
    }

    /**
     * One round: fetches every partition that is not backing off. Returns false when there was nothing to fetch
     * (the caller waits {@link ReplicationConfig#fetchBackoffMs()}).
     */
    public boolean doWork() {
        List<PartitionFetchState> batch;
        FetchRequestData req;
        synchronized (this) {
            long now = time.milliseconds();
            batch = new ArrayList<>();
            for (PartitionFetchState s : partitions.values()) {
                if (s.status == Status.DELAYED && now >= s.delayedUntilMs) s.status = Status.FETCHING;
                if (s.status == Status.FETCHING) batch.add(s);
            }
            if (batch.isEmpty()) return false;
            req = buildRequest(batch);
        }
        FetchResponseData resp;
        try {
            resp = (FetchResponseData) endpoint.send(ApiKeys.FETCH, FETCH_VERSION, req);
        } catch (IOException e) {
            log.info("Fetch from broker {} failed: {}; backing off", sourceBrokerId, e.toString());
            synchronized (this) {
                for (PartitionFetchState s : batch) if (partitions.get(s.tp) == s) delay(s, Errors.NETWORK_EXCEPTION);
            }
            return true;
        }
        synchronized (this) {
            if (resp.errorCode() != Errors.NONE.code()) {
                for (PartitionFetchState s : batch) if (partitions.get(s.tp) == s) delay(s, Errors.forCode(resp.errorCode()));
                return true;
            }
            Map<Uuid, Map<Integer, PartitionFetchState>> byId = new HashMap<>();
            for (PartitionFetchState s : batch) byId.computeIfAbsent(s.topicId, k -> new HashMap<>()).put(s.tp.partition(), s);
            for (FetchResponseData.FetchableTopicResponse t : resp.responses()) {
                Map<Integer, PartitionFetchState> ps = byId.getOrDefault(t.topicId(), Map.of());
                for (FetchResponseData.PartitionData pd : t.partitions()) {
                    PartitionFetchState s = ps.get(pd.partitionIndex());
                    if (s == null || partitions.get(s.tp) != s || s.status != Status.FETCHING) continue;
                    try {
                        handle(s, pd);
                    } catch (RuntimeException e) {
                        // e.g. a batch that does not continue our log (diverged in high-watermark mode): Kafka marks
                        // the partition failed rather than corrupting the log; only a new assignment restarts it.
                        s.status = Status.FAILED;
                        s.lastError = Errors.forException(e);
                        log.error("Replication of {} from broker {} failed; partition stopped", s.tp, sourceBrokerId, e);
                    }
                }
            }
        }
        return true;
    }

    private FetchRequestData buildRequest(List<PartitionFetchState> batch) {
        FetchRequestData req = new FetchRequestData().setMaxWaitMs(config.fetchMaxWaitMs()).setMinBytes(1)
                .setMaxBytes(config.fetchMaxBytes()).setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1);
        // Fetch v15+ names the replica in ReplicaState (the old top-level replicaId must stay -1).
        req.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(localId).setReplicaEpoch(-1));
        Map<Uuid, FetchRequestData.FetchTopic> topics = new LinkedHashMap<>();
        for (PartitionFetchState s : batch) {
            FetchRequestData.FetchTopic ft = topics.computeIfAbsent(s.topicId,
                    id -> new FetchRequestData.FetchTopic().setTopicId(id).setTopic(s.tp.topic()));
            ft.partitions().add(new FetchRequestData.FetchPartition().setPartition(s.tp.partition())
                    .setCurrentLeaderEpoch(s.currentLeaderEpoch).setFetchOffset(s.log.logEndOffset())
                    .setLastFetchedEpoch(lastFetchedEpoch(s)).setLogStartOffset(s.log.logStartOffset())
                    .setPartitionMaxBytes(config.partitionFetchMaxBytes()));
        }
        req.topics().addAll(topics.values());
        return req;
    }

    /** Epoch of our last batch; in high-watermark mode none is sent, so the leader never reports divergence. */
    private int lastFetchedEpoch(PartitionFetchState s) {
        if (config.truncation() == TruncationMode.HIGH_WATERMARK) return -1;
        if (noTruncation()) return -1; // seeded: the leader never reports divergence
        return s.log.latestEpoch().orElse(-1);
    }

    /** Seeded bug follower-no-truncate: the follower keeps whatever tail it has. */
    private boolean noTruncation() {
        return config.bugs().on(SeededBug.FOLLOWER_NO_TRUNCATE);
    }

    private void handle(PartitionFetchState s, FetchResponseData.PartitionData pd) {
        Errors error = Errors.forCode(pd.errorCode());
        s.lastError = error;
        switch (error) {
            case NONE -> handleData(s, pd);
            case OFFSET_OUT_OF_RANGE -> handleOutOfRange(s);
            case FENCED_LEADER_EPOCH -> {
                // Our epoch is older than the leader's: new metadata will re-add the partition with the right one.
                log.info("{}: leader {} fenced our epoch {}; waiting for new metadata", s.tp, sourceBrokerId,
                        s.currentLeaderEpoch);
                s.status = Status.FENCED;
            }
            default -> delay(s, error); // UNKNOWN_LEADER_EPOCH (leader behind us), NOT_LEADER_OR_FOLLOWER, ...
        }
    }

    private void handleData(PartitionFetchState s, FetchResponseData.PartitionData pd) {
        FetchResponseData.EpochEndOffset div = pd.divergingEpoch();
        if ((div.epoch() >= 0 || div.endOffset() >= 0) && !noTruncation()) {
            truncateOnDivergence(s, div);
            return;
        }
        s.lastDivergence = null;
        if (pd.records() instanceof MemoryRecords mr && mr.sizeInBytes() > 0) {
            if (noTruncation() && !cutToLeaderBatch(s, mr)) return; // fetch again from our new, lower end
            s.log.appendAsFollower(copy(mr));
        }
        long hw = Math.min(pd.highWatermark(), s.log.logEndOffset());
        if (hw > s.log.highWatermark()) s.log.updateHighWatermark(hw);
        // the leader's log start (moved by DeleteRecords or retention) is ours too, as far as our high watermark
        // reaches: a follower that kept the old start would serve deleted records again once it leads
        long start = Math.min(pd.logStartOffset(), s.log.highWatermark());
        if (start > s.log.logStartOffset()) s.log.maybeIncrementLogStartOffset(start);
    }

    /**
     * Cuts our log where the leader's answer says it diverged. The cut must change what the next fetch asks (a
     * shorter log or an older last epoch): the same answer to the same question means the cut did nothing, and
     * fetching again at once would only loop. Such a repeat is counted, reported (rate-limited, as a WARN that
     * names it) and backed off instead of being retried and logged in a tight loop.
     */
    private void truncateOnDivergence(PartitionFetchState s, FetchResponseData.EpochEndOffset div) {
        Divergence seen = new Divergence(div.epoch(), div.endOffset(), s.log.logEndOffset(), lastFetchedEpoch(s));
        long to = FollowerTruncation.offsetFor(new EpochEndOffset(div.epoch(), div.endOffset()), s.log);
        if (seen.equals(s.lastDivergence)) {
            s.repeatedDivergences++;
            repeatedDivergenceLog.warn(s.tp + ": leader " + sourceBrokerId + " answered diverging epoch " + div.epoch()
                    + " ending at " + div.endOffset() + " again (fetch offset " + seen.fetchOffset()
                    + ", last fetched epoch " + seen.lastFetchedEpoch() + "); truncating to " + to
                    + " did not change our log, so replication of this partition is not progressing ("
                    + s.repeatedDivergences + " repeats so far); backing off");
            s.log.truncateTo(to);
            delay(s, Errors.NONE);
            return;
        }
        log.info("{}: diverging epoch {} ending at {} from leader {}; truncating from {} to {}", s.tp, div.epoch(),
                div.endOffset(), sourceBrokerId, s.log.logEndOffset(), to);
        s.log.truncateTo(to);
        s.lastDivergence = seen;
    }

    /**
     * Seeded follower-no-truncate: the leader answers with the whole batch holding our fetch offset, which may start
     * below our log end when our tail diverged (its batches end elsewhere). Cut back only to that batch's start, the
     * least that lets replication go on, and keep the rest of the divergent tail: without this the append fails, the
     * partition stops here for good, and whether the bug could ever be seen hung on where the two logs' batches end.
     * Our own batches end elsewhere too: a cut inside one of ours takes the whole batch, leaving our end below the
     * leader's batch; then this answer is dropped (false) and the next fetch, from our new end, gets the leader's
     * batch holding that offset, until both logs meet at a boundary.
     */
    private boolean cutToLeaderBatch(PartitionFetchState s, MemoryRecords mr) {
        var first = mr.batches().iterator();
        if (!first.hasNext()) return true;
        long base = first.next().baseOffset();
        long end = s.log.logEndOffset();
        if (base >= end || base < s.log.logStartOffset()) return true;
        log.warn("{}: leader {}'s batch starts at {} inside our tail (end {}); cutting back to it only (seeded "
                + "follower-no-truncate keeps the rest)", s.tp, sourceBrokerId, base, end);
        s.log.truncateTo(base);
        return s.log.logEndOffset() == base;
    }

    /** Leader's log does not contain our fetch offset: cut back to its end, or restart at its start. */
    private void handleOutOfRange(PartitionFetchState s) {
        try {
            long leaderEnd = listOffset(s, ListOffsetsLatest.LATEST);
            long ourEnd = s.log.logEndOffset();
            if (leaderEnd < ourEnd && noTruncation()) {
                delay(s, Errors.OFFSET_OUT_OF_RANGE); // seeded: keeps its tail, resumes once the leader passes it
                return;
            }
            if (leaderEnd < ourEnd) {
                log.warn("{}: our end {} is beyond leader {}'s end {}; truncating", s.tp, ourEnd, sourceBrokerId, leaderEnd);
                s.log.truncateTo(leaderEnd);
                return;
            }
            long leaderStart = listOffset(s, ListOffsetsLatest.EARLIEST);
            if (leaderStart > ourEnd) {
                log.warn("{}: leader {} starts at {}, after our end {}; restarting the log there", s.tp, sourceBrokerId,
                        leaderStart, ourEnd);
                s.log.truncateFullyAndStartAt(leaderStart);
            } else {
                delay(s, Errors.OFFSET_OUT_OF_RANGE);
            }
        } catch (IOException e) {
            delay(s, Errors.NETWORK_EXCEPTION);
        }
    }

    private enum ListOffsetsLatest {
        LATEST(-1L), EARLIEST(-2L);
        final long timestamp;

        ListOffsetsLatest(long ts) {
            this.timestamp = ts;
        }
    }

    private long listOffset(PartitionFetchState s, ListOffsetsLatest which) throws IOException {
        ListOffsetsRequestData req = new ListOffsetsRequestData().setReplicaId(localId).setIsolationLevel((byte) 0);
        req.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName(s.tp.topic())
                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                        .setPartitionIndex(s.tp.partition()).setCurrentLeaderEpoch(s.currentLeaderEpoch)
                        .setTimestamp(which.timestamp))));
        ListOffsetsResponseData resp = (ListOffsetsResponseData) endpoint.send(ApiKeys.LIST_OFFSETS,
                LIST_OFFSETS_VERSION, req);
        for (ListOffsetsResponseData.ListOffsetsTopicResponse t : resp.topics()) {
            for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : t.partitions()) {
                if (p.partitionIndex() != s.tp.partition()) continue;
                if (p.errorCode() != Errors.NONE.code()) throw new IOException("ListOffsets: " + Errors.forCode(p.errorCode()));
                return p.offset();
            }
        }
        throw new IOException("ListOffsets answer without " + s.tp);
    }

    private void delay(PartitionFetchState s, Errors error) {
        s.status = Status.DELAYED;
        s.lastError = error;
        s.delayedUntilMs = time.milliseconds() + config.fetchBackoffMs();
    }

    /** Records in a response point into the response buffer; the log gets its own copy. */
    private static MemoryRecords copy(MemoryRecords mr) {
        java.nio.ByteBuffer src = mr.buffer().duplicate();
        java.nio.ByteBuffer dst = java.nio.ByteBuffer.allocate(src.remaining());
        dst.put(src).flip();
        return MemoryRecords.readableRecords(dst);
    }

    @Override
    public synchronized String toString() {
        return "ReplicaFetcher(" + localId + " <- " + sourceBrokerId + ", " + partitions.keySet() + ")";
    }
}
