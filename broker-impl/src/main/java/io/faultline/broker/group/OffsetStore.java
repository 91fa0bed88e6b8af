package io.faultline.broker.group;

import io.faultline.broker.common.Time;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.storage.LogReadResult;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed offsets: an in-memory view backed by the compacted internal topic {@code __consumer_offsets}
 * (partition = hash(group) mod partitions), in Kafka's record layout (key v1: group, topic, partition;
 * value v3: offset, leader epoch, metadata, commit time). Loaded back at startup, so commits survive restarts.
 * <p>
 * The view holds only what is replicated: an appended change waits, in log order, until the partition's high
 * watermark passes it (as Kafka's coordinator reads at its last committed offset), so a reader never sees a commit
 * that a leader change can still truncate. A node that starts to lead a partition replays its log to the high
 * watermark and queues the rest, and serves no read until the high watermark reaches the log end it loaded: the
 * tail may hold commits the previous leader acknowledged, which an older view would contradict.
 */
public final class OffsetStore {
    private static final Logger log = LoggerFactory.getLogger(OffsetStore.class);
    private static final short KEY_VERSION = 1;
    private static final short GROUP_KEY_VERSION = 2;
    private static final short GROUP_VALUE_VERSION = 0;
    private static final short VALUE_VERSION = 3;
    /** Key version of a read barrier: a record replay ignores (Kafka's loaders skip unknown key versions too). */
    private static final short BARRIER_KEY_VERSION = 0x7f00;

    public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestamp) {
    }

    private final PartitionManager partitions;
    private final int numPartitions;
    private final Time time;
    private final Map<String, Map<TopicPartition, CommittedOffset>> offsets = new ConcurrentHashMap<>();
    /** Latest persisted membership per group, filled by {@link #load()}. */
    private final Map<String, GroupRecord> loadedGroups = new HashMap<>();
    /**
     * One lock per offsets partition, held around each append and the in-memory change that goes with it, so the
     * log and the view apply concurrent commits and deletes in the same order.
     */
    private final Object[] partitionLocks;
    /** Per offsets partition, appended changes above the high watermark, in log order (guarded by its lock). */
    private final List<java.util.ArrayDeque<Pending>> pending = new ArrayList<>();
    /** Per offsets partition, the leader epoch and log end offset of its last load (-1: never loaded). */
    private final int[] loadedEpoch;
    private final long[] loadEnd;
    /** Records of {@code __consumer_offsets} skipped by loads because they could not be parsed. */
    private final java.util.concurrent.atomic.AtomicLong malformedRecords = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Per offsets partition, transactional offset commits not yet decided: producer id → group → offsets. A COMMIT
     * marker queues them like ordinary commits (visible once replicated), an ABORT marker drops them (lock held).
     */
    private final List<Map<Long, Map<String, Map<TopicPartition, CommittedOffset>>>> openTxnOffsets = new ArrayList<>();

    /** Offset changes of one append, visible once the high watermark reaches {@code end}; a null value deletes. */
    private record Pending(long end, String group, Map<TopicPartition, CommittedOffset> changes) {
    }

    public OffsetStore(PartitionManager partitions, int numPartitions, Time time) {
        this.partitions = partitions;
        this.numPartitions = numPartitions;
        this.time = time;
        this.partitionLocks = new Object[numPartitions];
        for (int i = 0; i < numPartitions; i++) partitionLocks[i] = new Object();
        this.loadedEpoch = new int[numPartitions];
        this.loadEnd = new long[numPartitions];
        java.util.Arrays.fill(loadedEpoch, -1);
        for (int i = 0; i < numPartitions; i++) pending.add(new java.util.ArrayDeque<>());
        for (int i = 0; i < numPartitions; i++) openTxnOffsets.add(new HashMap<>());
    }

    private Object lockFor(String groupId) {
        return partitionLocks[partitionFor(groupId)];
    }

    /** The {@code __consumer_offsets} partition that holds the group's offsets. */
    public TopicPartition offsetsPartition(String groupId) {
        return new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, partitionFor(groupId));
    }

    public int partitionFor(String groupId) {
        return org.apache.kafka.common.utils.Utils.abs(groupId.hashCode()) % numPartitions; // as Kafka's coordinator
    }

    /** Replays {@code __consumer_offsets}; returns the groups that have offsets. */
    public Set<String> load() {
        for (int p = 0; p < numPartitions; p++) loadPartition(p);
        log.info("Loaded committed offsets of {} groups", offsets.size());
        return offsets.keySet();
    }

    /**
     * Replays one partition of {@code __consumer_offsets} (when this node starts to lead it): the view of its groups
     * is rebuilt from the log up to the high watermark and the rest of the log is queued until it is replicated.
     * Returns the groups of that partition with offsets or membership.
     */
    public synchronized Set<String> loadPartition(int p) {
        Set<String> groups = new java.util.HashSet<>();
        Optional<Partition> part = partitions.get(new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, p));
        if (part.isPresent()) synchronized (partitionLocks[p]) {
            // Forget what an earlier term left in memory: only the log says what is committed.
            offsets.keySet().removeIf(g -> partitionFor(g) == p);
            pending.get(p).clear();
            openTxnOffsets.get(p).clear();
            loadedEpoch[p] = part.get().leaderEpoch();
            long offset = part.get().log().logStartOffset();
            long hw = part.get().highWatermark();
            long end = part.get().log().logEndOffset();
            loadEnd[p] = end;
            long skipped = 0;
            while (offset < end) {
                LogReadResult r = part.get().log().read(offset, 1 << 20, end);
                for (MutableRecordBatch b : r.records().batches()) {
                    if (b.lastOffset() < offset) continue;
                    if (b.isControlBatch()) {
                        replayMarker(p, b, hw);
                        continue;
                    }
                    for (Record rec : b) {
                        if (rec.offset() < offset || !rec.hasKey()) continue;
                        if (b.isTransactional()) {
                            try {
                                openTxnOffset(p, b.producerId(), rec.key(), rec.value());
                            } catch (RuntimeException e) {
                                skipped++;
                            }
                            continue;
                        }
                        ByteBuffer value = rec.hasValue() ? rec.value() : null;
                        try {
                            if (rec.offset() < hw) apply(rec.key(), value);
                            else queue(p, rec.offset() + 1, rec.key(), value);
                        } catch (RuntimeException e) {
                            // A record this store cannot parse (written by a client before internal topics were
                            // refused, or by another version) is skipped: one bad record must not keep the node down.
                            if (skipped++ == 0) {
                                log.warn("Skipping malformed record at offset {} of {}-{}: {}", rec.offset(),
                                        Topic.GROUP_METADATA_TOPIC_NAME, p, e.toString());
                            }
                        }
                    }
                }
                if (r.nextOffset() <= offset) break;
                offset = r.nextOffset();
            }
            if (skipped > 0) {
                malformedRecords.addAndGet(skipped);
                log.warn("Skipped {} malformed records loading {}-{}", skipped, Topic.GROUP_METADATA_TOPIC_NAME, p);
            }
            materialize(p, part.get());
        }
        for (String g : offsets.keySet()) if (partitionFor(g) == p) groups.add(g);
        for (String g : loadedGroups.keySet()) if (partitionFor(g) == p) groups.add(g);
        for (Pending q : pending.get(p)) groups.add(q.group());
        return groups;
    }

    /** A transactional offset commit read back from the log: held until its transaction's marker. */
    private void openTxnOffset(int p, long producerId, ByteBuffer key, ByteBuffer value) {
        ByteBuffer k = key.duplicate();
        short kv = k.getShort();
        if ((kv != 0 && kv != KEY_VERSION) || value == null) return;
        String group = readString(k);
        TopicPartition tp = new TopicPartition(readString(k), k.getInt());
        ByteBuffer v = value.duplicate();
        v.getShort();
        openTxnOffsets.get(p).computeIfAbsent(producerId, x -> new HashMap<>())
                .computeIfAbsent(group, x -> new HashMap<>())
                .put(tp, new CommittedOffset(v.getLong(), v.getInt(), readString(v), v.getLong()));
    }

    /** A COMMIT/ABORT marker read back from the log decides that producer's open offset commits. */
    private void replayMarker(int p, MutableRecordBatch b, long hw) {
        for (Record rec : b) {
            var type = org.apache.kafka.common.record.internal.ControlRecordType.parse(rec.key());
            boolean commit = type == org.apache.kafka.common.record.internal.ControlRecordType.COMMIT;
            if (!commit && type != org.apache.kafka.common.record.internal.ControlRecordType.ABORT) return;
            Map<String, Map<TopicPartition, CommittedOffset>> decided = openTxnOffsets.get(p).remove(b.producerId());
            if (!commit || decided == null) return;
            long end = b.lastOffset() + 1;
            decided.forEach((group, changes) -> {
                if (end <= hw) show(group, changes);
                else pending.get(p).add(new Pending(end, group, changes));
            });
            return;
        }
    }

    /**
     * TxnOffsetCommit: appends the offsets as a transactional batch of the producer (sequence 0, unchecked: the
     * coordinator writes it, as Kafka's does) and holds them until the transaction's marker. Returns the offset the high watermark must reach
     * for the append to be replicated.
     *
     * @throws org.apache.kafka.common.errors.ApiException if the append fails (e.g. a fenced producer epoch)
     */
    public long commitTransactional(String groupId, long producerId, short producerEpoch,
                                    Map<TopicPartition, CommittedOffset> commits) {
        Partition part = offsetsLeaderPartition(groupId);
        List<SimpleRecord> records = new ArrayList<>();
        long now = time.milliseconds();
        commits.forEach((tp, c) -> records.add(new SimpleRecord(now, key(groupId, tp), value(c))));
        int p = partitionFor(groupId);
        List<Runnable> completions = new ArrayList<>(1);
        try {
            synchronized (lockFor(groupId)) {
                Partition.AppendResult r = part.appendAsLeader(MemoryRecords.withTransactionalRecords(Compression.NONE,
                        producerId, producerEpoch, 0, records.toArray(new SimpleRecord[0])), completions::add, true);
                openTxnOffsets.get(p).computeIfAbsent(producerId, x -> new HashMap<>())
                        .computeIfAbsent(groupId, x -> new HashMap<>()).putAll(commits);
                return r.lastOffset() + 1;
            }
        } finally {
            completeOutsideLocks(completions);
        }
    }

    /**
     * WriteTxnMarkers on an offsets partition: appends the marker and decides the producer's open offset commits in
     * the same step (a commit shows them once the marker is replicated), so the view follows the log's order.
     */
    public Partition.AppendResult writeMarker(int p, long producerId, short producerEpoch, int coordinatorEpoch,
                                              boolean commit, java.util.function.Consumer<Runnable> deferred) {
        Partition part = partitions.get(new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, p)).orElseThrow(() ->
                new org.apache.kafka.common.errors.NotLeaderOrFollowerException("offsets partition " + p + " not here"));
        synchronized (partitionLocks[p]) {
            Partition.AppendResult r = part.appendMarker(producerId, producerEpoch, coordinatorEpoch, commit,
                    time.milliseconds(), deferred);
            Map<String, Map<TopicPartition, CommittedOffset>> decided = openTxnOffsets.get(p).remove(producerId);
            if (commit && decided != null) {
                decided.forEach((group, changes) -> pending.get(p).add(new Pending(r.lastOffset() + 1, group, changes)));
            }
            materialize(p, part);
            return r;
        }
    }

    /**
     * Whether a change of the group's offset of {@code tp} is undecided (in an open transaction) or not yet
     * replicated: OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT then, as Kafka.
     */
    public boolean hasPendingCommit(String groupId, TopicPartition tp) {
        int p = partitionFor(groupId);
        Optional<Partition> part = partitions.get(offsetsPartition(groupId));
        synchronized (partitionLocks[p]) {
            part.ifPresent(x -> materialize(p, x)); // what the high watermark passed since is no longer pending
            for (Map<String, Map<TopicPartition, CommittedOffset>> txn : openTxnOffsets.get(p).values()) {
                if (txn.getOrDefault(groupId, Map.of()).containsKey(tp)) return true;
            }
            for (Pending q : pending.get(p)) if (q.group().equals(groupId) && q.changes().containsKey(tp)) return true;
            return false;
        }
    }

    /** How many malformed records loads have skipped (each load counts what it skipped). */
    public long malformedRecords() {
        return malformedRecords.get();
    }

    /** Whether the last load of partition {@code p} was at this leader epoch. */
    public boolean loadedAt(int p, int leaderEpoch) {
        synchronized (partitionLocks[p]) {
            return loadedEpoch[p] == leaderEpoch;
        }
    }

    /**
     * Throws unless this node may answer a read of the group's offsets: it leads the group's partition, has loaded
     * it in the current leader epoch, and the high watermark has reached the end of what it loaded.
     */
    public void checkReadable(String groupId) {
        int p = partitionFor(groupId);
        Partition part = partitions.get(offsetsPartition(groupId)).orElseThrow(() ->
                new org.apache.kafka.common.errors.CoordinatorNotAvailableException("offsets partition " + p + " not here"));
        if (!part.isLeader()) {
            throw new org.apache.kafka.common.errors.NotCoordinatorException("not the leader of offsets partition " + p);
        }
        synchronized (partitionLocks[p]) {
            if (loadedEpoch[p] != part.leaderEpoch() || part.highWatermark() < loadEnd[p]) {
                throw new org.apache.kafka.common.errors.CoordinatorLoadInProgressException("offsets partition " + p
                        + " is loading (epoch " + part.leaderEpoch() + ", high watermark " + part.highWatermark()
                        + " of " + loadEnd[p] + ")");
            }
        }
    }

    /** A replayed offset record above the high watermark (group records apply at once, as before). */
    private void queue(int p, long end, ByteBuffer key, ByteBuffer value) {
        ByteBuffer k = key.duplicate();
        short kv = k.getShort();
        if (kv != 0 && kv != KEY_VERSION) {
            apply(key, value);
            return;
        }
        String group = readString(k);
        TopicPartition tp = new TopicPartition(readString(k), k.getInt());
        Map<TopicPartition, CommittedOffset> change = new HashMap<>();
        if (value == null) {
            change.put(tp, null);
        } else {
            ByteBuffer v = value.duplicate();
            v.getShort();
            change.put(tp, new CommittedOffset(v.getLong(), v.getInt(), readString(v), v.getLong()));
        }
        pending.get(p).add(new Pending(end, group, change));
    }

    /** Makes visible, in log order, the queued changes of partition {@code p} below its high watermark (lock held). */
    private void materialize(int p, Partition part) {
        long hw = part.highWatermark();
        java.util.ArrayDeque<Pending> q = pending.get(p);
        while (!q.isEmpty() && q.peekFirst().end() <= hw) {
            Pending next = q.pollFirst();
            show(next.group(), next.changes());
        }
    }

    private void materialize(String groupId) {
        int p = partitionFor(groupId);
        Optional<Partition> part = partitions.get(offsetsPartition(groupId));
        if (part.isEmpty()) return;
        synchronized (partitionLocks[p]) {
            materialize(p, part.get());
        }
    }

    /** Applies changes to the view: a null value deletes; a group left without offsets is dropped. */
    private void show(String group, Map<TopicPartition, CommittedOffset> changes) {
        Map<TopicPartition, CommittedOffset> m = offsets.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
        changes.forEach((tp, c) -> {
            if (c == null) m.remove(tp);
            else m.put(tp, c);
        });
        if (m.isEmpty()) offsets.remove(group);
    }

    private void apply(ByteBuffer key, ByteBuffer value) {
        short kv = key.getShort();
        if (kv == GROUP_KEY_VERSION) {
            String group = readString(key);
            if (value == null) loadedGroups.remove(group);
            else loadedGroups.put(group, decodeGroup(group, value));
            return;
        }
        if (kv != 0 && kv != KEY_VERSION) return;
        String group = readString(key);
        TopicPartition tp = new TopicPartition(readString(key), key.getInt());
        if (value == null) {
            Map<TopicPartition, CommittedOffset> m = offsets.get(group);
            if (m != null) m.remove(tp);
            if (m != null && m.isEmpty()) offsets.remove(group); // a deleted group is not revived at restart
            return;
        }
        value.getShort();
        CommittedOffset c = new CommittedOffset(value.getLong(), value.getInt(), readString(value), value.getLong());
        offsets.computeIfAbsent(group, g -> new ConcurrentHashMap<>()).put(tp, c);
    }

    /**
     * Appends the commits to the group's offsets partition; they become visible once replicated. Returns the offset
     * the partition's high watermark must reach for the commits to be replicated (empty when there was nothing).
     *
     * @throws org.apache.kafka.common.errors.ApiException if the append fails
     */
    public java.util.OptionalLong commit(String groupId, Map<TopicPartition, CommittedOffset> commits) {
        return commit(groupId, commits, false);
    }

    /**
     * As {@link #commit(String, Map)}; with {@code visibleAtOnce} (seeded bug offset-commit-unreplicated) the view
     * shows the commits right after the leader's append, as a broker that treats the append as the commit would.
     */
    public java.util.OptionalLong commit(String groupId, Map<TopicPartition, CommittedOffset> commits, boolean visibleAtOnce) {
        if (commits.isEmpty()) return java.util.OptionalLong.empty();
        Partition part = offsetsLeaderPartition(groupId);
        List<SimpleRecord> records = new ArrayList<>();
        long now = time.milliseconds();
        commits.forEach((p, c) -> records.add(new SimpleRecord(now, key(groupId, p), value(c))));
        int p = partitionFor(groupId);
        List<Runnable> completions = new ArrayList<>(1);
        try {
            synchronized (lockFor(groupId)) {
                Partition.AppendResult r = part.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                        records.toArray(new SimpleRecord[0])), completions::add);
                if (visibleAtOnce) {
                    materialize(p, part);
                    show(groupId, new HashMap<>(commits));
                } else {
                    pending.get(p).add(new Pending(r.lastOffset() + 1, groupId, new HashMap<>(commits)));
                    materialize(p, part);
                }
                return java.util.OptionalLong.of(r.lastOffset() + 1);
            }
        } finally {
            completeOutsideLocks(completions);
        }
    }

    /**
     * Runs what an append under a partition lock deferred (the high-watermark move, waking waiting operations),
     * after that lock is released: a woken OffsetFetch answers under its operation's lock and takes the partition
     * lock, so completing it while holding the partition lock deadlocks against it.
     */
    private static void completeOutsideLocks(List<Runnable> completions) {
        for (Runnable r : completions) r.run();
    }

    /**
     * Appends a read barrier to the group's offsets partition and returns the offset the high watermark must reach
     * for it to be replicated. Once it is, this node still led when the barrier went out: an in-sync follower fetched
     * it in this leader epoch, so (with min.insync.replicas of at least all but one replica) no other leader can have
     * acknowledged a commit before that, and the view answers as of then.
     *
     * @throws org.apache.kafka.common.errors.ApiException if the append fails
     */
    public long barrier(String groupId) {
        Partition part = offsetsLeaderPartition(groupId);
        byte[] key = ByteBuffer.allocate(2).putShort(BARRIER_KEY_VERSION).array();
        List<Runnable> completions = new ArrayList<>(1);
        try {
            synchronized (lockFor(groupId)) {
                Partition.AppendResult r = part.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                        new SimpleRecord(time.milliseconds(), key, null)), completions::add);
                return r.lastOffset() + 1;
            }
        } finally {
            completeOutsideLocks(completions);
        }
    }

    /** Group states found by {@link #load()}. */
    public Map<String, GroupRecord> loadedGroups() {
        return Map.copyOf(loadedGroups);
    }

    /** Persists a group's membership next to its offsets (same partition, so one ordered history per group). */
    public void storeGroup(GroupRecord g) {
        Partition part = offsetsLeaderPartition(g.groupId());
        byte[] group = g.groupId().getBytes(StandardCharsets.UTF_8);
        byte[] key = ByteBuffer.allocate(2 + 2 + group.length).putShort(GROUP_KEY_VERSION)
                .putShort((short) group.length).put(group).array();
        part.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(time.milliseconds(), key, encodeGroup(g))));
    }

    private static byte[] encodeGroup(GroupRecord g) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeShort(GROUP_VALUE_VERSION);
            out.writeUTF(g.protocolType());
            out.writeInt(g.generationId());
            out.writeUTF(g.protocolName());
            out.writeUTF(g.leaderId());
            out.writeInt(g.members().size());
            for (GroupRecord.Member m : g.members()) {
                out.writeUTF(m.memberId());
                out.writeUTF(m.groupInstanceId() == null ? "" : m.groupInstanceId());
                out.writeUTF(m.clientId() == null ? "" : m.clientId());
                out.writeUTF(m.clientHost() == null ? "" : m.clientHost());
                out.writeInt(m.rebalanceTimeoutMs());
                out.writeInt(m.sessionTimeoutMs());
                out.writeInt(m.subscription().length);
                out.write(m.subscription());
                out.writeInt(m.assignment().length);
                out.write(m.assignment());
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static GroupRecord decodeGroup(String groupId, ByteBuffer value) {
        byte[] raw = new byte[value.remaining()];
        value.get(raw);
        try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(raw))) {
            in.readShort();
            String protocolType = in.readUTF();
            int generation = in.readInt();
            String protocolName = in.readUTF();
            String leader = in.readUTF();
            int n = in.readInt();
            List<GroupRecord.Member> members = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String memberId = in.readUTF();
                String instance = in.readUTF();
                String clientId = in.readUTF();
                String host = in.readUTF();
                int rebalance = in.readInt();
                int session = in.readInt();
                byte[] sub = in.readNBytes(in.readInt());
                byte[] assignment = in.readNBytes(in.readInt());
                members.add(new GroupRecord.Member(memberId, instance.isEmpty() ? null : instance, clientId, host,
                        rebalance, session, sub, assignment));
            }
            return new GroupRecord(groupId, protocolType, generation, protocolName, leader, members);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Tombstones every committed offset of a deleted topic, so a new topic of that name starts fresh. */
    public void removeTopic(String topic) {
        Set<String> groups = new java.util.HashSet<>(offsets.keySet());
        for (int p = 0; p < numPartitions; p++) synchronized (partitionLocks[p]) {
            pending.get(p).forEach(x -> groups.add(x.group()));
        }
        for (String groupId : groups) {
            Optional<Partition> part = partitions.get(offsetsPartition(groupId));
            if (part.isEmpty()) continue;
            List<Runnable> completions = new ArrayList<>(1);
            try {
                synchronized (lockFor(groupId)) {
                    List<TopicPartition> gone = known(groupId).stream().filter(tp -> tp.topic().equals(topic)).toList();
                    if (gone.isEmpty()) continue;
                    tombstone(groupId, part.get(), gone, false, completions);
                }
            } finally {
                completeOutsideLocks(completions);
            }
        }
    }

    /**
     * OffsetDelete: tombstones the group's offsets of {@code partitions} (those it has), in one append; they are
     * forgotten once replicated.
     */
    public void deleteOffsets(String groupId, Collection<TopicPartition> partitions) {
        List<Runnable> completions = new ArrayList<>(1);
        try {
            synchronized (lockFor(groupId)) {
                Set<TopicPartition> have = known(groupId);
                List<TopicPartition> gone = partitions.stream().filter(have::contains).distinct().toList();
                if (gone.isEmpty()) return;
                tombstone(groupId, offsetsLeaderPartition(groupId), gone, false, completions);
            }
        } finally {
            completeOutsideLocks(completions);
        }
    }

    /** DeleteGroups: tombstones every offset of the group and its membership record, in one append. */
    public void deleteGroup(String groupId) {
        List<Runnable> completions = new ArrayList<>(1);
        try {
            synchronized (lockFor(groupId)) {
                tombstone(groupId, offsetsLeaderPartition(groupId), List.copyOf(known(groupId)), true, completions);
            }
        } finally {
            completeOutsideLocks(completions);
        }
    }

    /** The partitions the group has offsets for, shown or still queued (lock held). */
    private Set<TopicPartition> known(String groupId) {
        Set<TopicPartition> out = new java.util.HashSet<>(offsets.getOrDefault(groupId, Map.of()).keySet());
        for (Pending q : pending.get(partitionFor(groupId))) if (q.group().equals(groupId)) out.addAll(q.changes().keySet());
        return out;
    }

    /** Appends tombstones (and the membership's, for a deleted group) and queues them like commits (lock held). */
    private void tombstone(String groupId, Partition part, List<TopicPartition> gone, boolean membershipToo,
                           List<Runnable> completions) {
        List<SimpleRecord> tombstones = new ArrayList<>();
        long now = time.milliseconds();
        Map<TopicPartition, CommittedOffset> changes = new HashMap<>();
        for (TopicPartition tp : gone) {
            tombstones.add(new SimpleRecord(now, key(groupId, tp), null));
            changes.put(tp, null);
        }
        if (membershipToo) {
            byte[] group = groupId.getBytes(StandardCharsets.UTF_8);
            tombstones.add(new SimpleRecord(now, ByteBuffer.allocate(2 + 2 + group.length).putShort(GROUP_KEY_VERSION)
                    .putShort((short) group.length).put(group).array(), null));
        }
        if (tombstones.isEmpty()) return;
        Partition.AppendResult r = part.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                tombstones.toArray(new SimpleRecord[0])), completions::add);
        int p = partitionFor(groupId);
        if (!changes.isEmpty()) pending.get(p).add(new Pending(r.lastOffset() + 1, groupId, changes));
        materialize(p, part);
    }

    private Partition offsetsLeaderPartition(String groupId) {
        TopicPartition tp = offsetsPartition(groupId);
        return partitions.get(tp).orElseThrow(() ->
                new org.apache.kafka.common.errors.CoordinatorNotAvailableException("offsets partition " + tp + " not loaded"));
    }

    /** The group's replicated offset of {@code tp} (see {@link #checkReadable} for whether to trust this node). */
    public Optional<CommittedOffset> fetch(String groupId, TopicPartition tp) {
        materialize(groupId);
        Map<TopicPartition, CommittedOffset> m = offsets.get(groupId);
        return m == null ? Optional.empty() : Optional.ofNullable(m.get(tp));
    }

    public Map<TopicPartition, CommittedOffset> fetchAll(String groupId) {
        materialize(groupId);
        Map<TopicPartition, CommittedOffset> m = offsets.get(groupId);
        return m == null ? Map.of() : new HashMap<>(m);
    }

    private static byte[] key(String group, TopicPartition tp) {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] t = tp.topic().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 2 + g.length + 2 + t.length + 4).putShort(KEY_VERSION)
                .putShort((short) g.length).put(g).putShort((short) t.length).put(t).putInt(tp.partition()).array();
    }

    private static byte[] value(CommittedOffset c) {
        byte[] m = (c.metadata() == null ? "" : c.metadata()).getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 8 + 4 + 2 + m.length + 8).putShort(VALUE_VERSION).putLong(c.offset())
                .putInt(c.leaderEpoch()).putShort((short) m.length).put(m).putLong(c.commitTimestamp()).array();
    }

    private static String readString(ByteBuffer b) {
        short len = b.getShort();
        if (len < 0) return null;
        byte[] bytes = new byte[len];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
