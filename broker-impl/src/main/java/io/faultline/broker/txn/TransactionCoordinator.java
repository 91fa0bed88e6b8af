package io.faultline.broker.txn;

import io.faultline.broker.common.Scheduler;
import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.Time;
import io.faultline.broker.partition.Partition;
import io.faultline.broker.partition.PartitionManager;
import io.faultline.broker.partition.ProducerIdManager;
import io.faultline.broker.purgatory.DelayedOperation;
import io.faultline.broker.replication.LeaderState;
import io.faultline.broker.storage.LogReadResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator of this node: it coordinates the transactional ids whose {@code __transaction_state}
 * partition it leads. Every state change is appended to that partition and acknowledged only once replicated
 * (as an acks=all write); the in-memory view changes only then. A node that becomes leader of a partition loads
 * it (once its high watermark covers the log it inherited) before it answers, then finishes the transactions it
 * finds prepared. One change per transactional id is in flight at a time: others get CONCURRENT_TRANSACTIONS.
 */
public final class TransactionCoordinator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinator.class);
    /** Kafka's transaction.max.timeout.ms default. */
    static final int MAX_TIMEOUT_MS = 900_000;
    /** How often open transactions are checked against their timeout (Kafka: 10 s). */
    public static final long ABORT_CHECK_INTERVAL_MS = 1_000;
    /** How often led partitions are checked for a load or an unload, and failed markers retried. */
    static final long RETRY_MS = 100;
    static final long WRITE_TIMEOUT_MS = 5_000;

    /** Sends one producer's markers to the leader of some partitions; completes with each partition's error. */
    public interface MarkerSender {
        CompletableFuture<Map<TopicPartition, Errors>> send(int leaderId, long producerId, short producerEpoch,
                                                             int coordinatorEpoch, boolean commit,
                                                             List<TopicPartition> partitions);
    }

    /** InitProducerId's answer. */
    public record InitResult(Errors error, long producerId, short producerEpoch) {
        static InitResult error(Errors e) {
            return new InitResult(e, -1, (short) -1);
        }
    }

    /** A transactional id's state plus whether a change of it is being persisted. */
    private static final class Entry {
        TxnMetadata meta; // null until the first state is persisted
        boolean pending;
    }

    private final PartitionManager partitions;
    private final Function<TopicPartition, Optional<LeaderState>> replicationLeader;
    private final TransactionStateTopic topic;
    private final ProducerIdManager ids;
    private final Time time;
    /** The leader of a partition per the current metadata: empty when its topic is gone, -1 when leaderless. */
    private final Function<TopicPartition, Optional<Integer>> leaderOf;
    private final MarkerSender markers;
    private final Map<String, Entry> txns = new HashMap<>(); // guarded by this
    /** Per partition of __transaction_state, the leader epoch it was loaded in (-1: not loaded); guarded by this. */
    private final int[] loadedEpoch;
    private final List<Scheduler.Cancellable> tasks = new ArrayList<>();
    /**
     * Marker rounds and completions start here, never inside the completion of a delayed operation (whose lock is
     * held then): they append to partitions, and appends complete other delayed operations.
     */
    private final java.util.concurrent.ExecutorService worker = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> {
                Thread t = new Thread(r, "txn-coordinator");
                t.setDaemon(true);
                return t;
            });

    public TransactionCoordinator(PartitionManager partitions,
                                  Function<TopicPartition, Optional<LeaderState>> replicationLeader,
                                  TransactionStateTopic topic, ProducerIdManager ids, Time time,
                                  Function<TopicPartition, Optional<Integer>> leaderOf, MarkerSender markers) {
        this.partitions = partitions;
        this.replicationLeader = replicationLeader;
        this.topic = topic;
        this.ids = ids;
        this.time = time;
        this.leaderOf = leaderOf;
        this.markers = markers;
        this.loadedEpoch = new int[topic.partitions()];
        java.util.Arrays.fill(loadedEpoch, -1);
    }

    /** Starts the periodic work: loading newly led partitions, and aborting timed-out transactions. */
    public void start() {
        tasks.add(time.scheduler().scheduleWithFixedDelay("txn-load", this::loadAndUnload, RETRY_MS, RETRY_MS));
        tasks.add(time.scheduler().scheduleWithFixedDelay("txn-timeouts", this::abortTimedOut,
                ABORT_CHECK_INTERVAL_MS, ABORT_CHECK_INTERVAL_MS));
    }

    // ---------------------------------------------------------------- requests

    public void initProducerId(String txnId, int timeoutMs, long expectedPid, short expectedEpoch,
                               Consumer<InitResult> done) {
        Errors err = checkCoordinator(txnId);
        if (err != Errors.NONE) {
            done.accept(InitResult.error(err));
            return;
        }
        if (timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
            done.accept(InitResult.error(Errors.INVALID_TRANSACTION_TIMEOUT));
            return;
        }
        long now = time.milliseconds();
        TxnMetadata next;
        Entry e;
        int coordEpoch;
        boolean fencing = false;
        synchronized (this) {
            coordEpoch = loadedEpoch[topic.partitionFor(txnId)];
            e = txns.get(txnId);
            if (e == null) {
                e = new Entry();
                txns.put(txnId, e);
                next = TxnMetadata.fresh(txnId, ids.nextProducerId(), timeoutMs, now);
            } else if (e.pending || e.meta == null) {
                done.accept(InitResult.error(Errors.CONCURRENT_TRANSACTIONS));
                return;
            } else if (expectedPid >= 0 && (expectedPid != e.meta.producerId() || expectedEpoch != e.meta.producerEpoch())) {
                done.accept(InitResult.error(Errors.PRODUCER_FENCED));
                return;
            } else {
                TxnMetadata m = e.meta;
                switch (m.state()) {
                    case ONGOING -> {
                        // A new instance fences the old one: abort its transaction with a bumped epoch (the old
                        // instance's writes and EndTxn are refused from now on); the client retries meanwhile.
                        next = m.fence(bump(m.producerEpoch()), timeoutMs, now);
                        fencing = true;
                    }
                    case PREPARE_COMMIT, PREPARE_ABORT -> {
                        done.accept(InitResult.error(Errors.CONCURRENT_TRANSACTIONS));
                        return;
                    }
                    default -> {
                        boolean exhausted = m.producerEpoch() >= Short.MAX_VALUE - 1;
                        long pid = exhausted ? ids.nextProducerId() : m.producerId();
                        short epoch = exhausted ? 0 : (short) (m.producerEpoch() + 1);
                        next = m.transitionTo(TransactionState.EMPTY, pid, epoch, timeoutMs, Set.of(), now);
                    }
                }
            }
            e.pending = true;
        }
        boolean fenced = fencing;
        persist(e, next, coordEpoch, error -> {
            if (error != Errors.NONE) {
                done.accept(InitResult.error(error));
            } else if (fenced) {
                done.accept(InitResult.error(Errors.CONCURRENT_TRANSACTIONS));
                writeMarkers(next, coordEpoch);
            } else {
                done.accept(new InitResult(Errors.NONE, next.producerId(), next.producerEpoch()));
            }
        });
    }

    /** AddPartitionsToTxn and AddOffsetsToTxn: adds partitions to the producer's (maybe new) open transaction. */
    public void addPartitions(String txnId, long producerId, short producerEpoch, Set<TopicPartition> added,
                              Consumer<Errors> done) {
        Errors err = checkCoordinator(txnId);
        if (err != Errors.NONE) {
            done.accept(err);
            return;
        }
        TxnMetadata next;
        Entry e;
        int coordEpoch;
        synchronized (this) {
            coordEpoch = loadedEpoch[topic.partitionFor(txnId)];
            e = txns.get(txnId);
            Errors owner = e != null && e.meta != null && EndTxnRules.isNextProducer(e.meta, producerId)
                    ? Errors.CONCURRENT_TRANSACTIONS : checkProducer(e, producerId, producerEpoch);
            if (owner != Errors.NONE) {
                done.accept(owner);
                return;
            }
            TxnMetadata m = e.meta;
            if (m.state() == TransactionState.PREPARE_COMMIT || m.state() == TransactionState.PREPARE_ABORT) {
                done.accept(Errors.CONCURRENT_TRANSACTIONS);
                return;
            }
            if (m.state() == TransactionState.ONGOING && m.partitions().containsAll(added)) {
                done.accept(Errors.NONE);
                return;
            }
            next = m.transitionTo(TransactionState.ONGOING, m.producerId(), m.producerEpoch(), m.timeoutMs(), added,
                    time.milliseconds());
            e.pending = true;
        }
        persist(e, next, coordEpoch, done);
    }

    /**
     * AddPartitionsToTxn v4+ with verifyOnly (KIP-890 part 1's check by a partition leader): NONE for each partition
     * in the producer's open transaction, TRANSACTION_ABORTABLE for the others; one error for all if the producer
     * is not the current one.
     */
    public Map<TopicPartition, Errors> verify(String txnId, long producerId, short producerEpoch,
                                              Set<TopicPartition> tps) {
        Errors err = checkCoordinator(txnId);
        Map<TopicPartition, Errors> out = new HashMap<>();
        synchronized (this) {
            Entry e = txns.get(txnId);
            if (err == Errors.NONE) err = checkProducer(e, producerId, producerEpoch);
            for (TopicPartition tp : tps) {
                out.put(tp, err != Errors.NONE ? err : e.meta.state() == TransactionState.ONGOING
                        && e.meta.partitions().contains(tp) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE);
            }
        }
        return out;
    }

    /** EndTxn's answer: the error, and (transaction version 2) the producer id and epoch to continue with. */
    public record EndResult(Errors error, long producerId, short producerEpoch) {
    }

    /**
     * Ends the producer's transaction: persists PREPARE_COMMIT/ABORT, answers, writes the markers, persists
     * COMPLETE_*. With {@code v2} (EndTxn v5+) the epoch is bumped in the prepared state, so the markers carry the
     * new epoch (see {@link EndTxnRules}).
     */
    public void endTxn(String txnId, long producerId, short producerEpoch, boolean commit, boolean v2,
                       Consumer<EndResult> done) {
        Errors err = checkCoordinator(txnId);
        if (err != Errors.NONE) {
            done.accept(new EndResult(err, -1, (short) -1));
            return;
        }
        EndTxnRules.Prepare prepare;
        Entry e;
        int coordEpoch;
        synchronized (this) {
            coordEpoch = loadedEpoch[topic.partitionFor(txnId)];
            e = txns.get(txnId);
            if (e == null || e.meta == null) {
                done.accept(new EndResult(e == null ? Errors.INVALID_PRODUCER_ID_MAPPING
                        : Errors.CONCURRENT_TRANSACTIONS, -1, (short) -1));
                return;
            }
            EndTxnRules.Decision d = EndTxnRules.decide(e.meta, e.pending, producerId, producerEpoch, commit, v2,
                    ids::nextProducerId, time.milliseconds());
            if (d instanceof EndTxnRules.Answer a) {
                done.accept(new EndResult(a.error(), a.producerId(), a.producerEpoch()));
                return;
            }
            prepare = (EndTxnRules.Prepare) d;
            e.pending = true;
        }
        TxnMetadata next = prepare.next();
        persist(e, next, coordEpoch, error -> {
            done.accept(error == Errors.NONE ? new EndResult(error, prepare.producerId(), prepare.producerEpoch())
                    : new EndResult(error, -1, (short) -1));
            if (error == Errors.NONE) writeMarkers(next, coordEpoch);
        });
    }

    /** The state of every transactional id this node coordinates now (DescribeTransactions, ListTransactions). */
    public synchronized Map<String, TxnMetadata> transactions() {
        Map<String, TxnMetadata> out = new HashMap<>();
        txns.forEach((id, e) -> {
            if (e.meta != null) out.put(id, e.meta);
        });
        return out;
    }

    /** NONE if this node coordinates {@code txnId} and has loaded its partition; else the error to answer. */
    public Errors checkCoordinator(String txnId) {
        int p = topic.partitionFor(txnId);
        Optional<Partition> part = partitions.get(new TopicPartition(TransactionStateTopic.NAME, p));
        if (part.isEmpty() || !part.get().isLeader()) return Errors.NOT_COORDINATOR;
        return ensureLoaded(p, part.get()) ? Errors.NONE : Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }

    /** The producer of a request must be the transactional id's current one (Kafka's rules and errors). */
    private static Errors checkProducer(Entry e, long producerId, short producerEpoch) {
        if (e == null || e.meta == null) return e == null ? Errors.INVALID_PRODUCER_ID_MAPPING : Errors.CONCURRENT_TRANSACTIONS;
        if (e.meta.producerId() != producerId) return Errors.INVALID_PRODUCER_ID_MAPPING;
        if (e.meta.producerEpoch() != producerEpoch) return Errors.PRODUCER_FENCED;
        if (e.pending) return Errors.CONCURRENT_TRANSACTIONS;
        return Errors.NONE;
    }

    private static short bump(short epoch) {
        return (short) Math.min(Short.MAX_VALUE, epoch + 1);
    }

    // ---------------------------------------------------------------- persistence

    /**
     * Appends {@code next} to the transactional id's partition and, once replicated in the same coordinator epoch,
     * makes it the entry's state. {@code done} gets NONE or a coordinator error (the entry keeps its old state).
     */
    private void persist(Entry e, TxnMetadata next, int coordEpoch, Consumer<Errors> done) {
        TopicPartition tp = topic.topicPartition(next.transactionalId());
        Consumer<Errors> finish = error -> {
            Errors result = error;
            synchronized (this) {
                e.pending = false;
                if (result == Errors.NONE && (coordEpoch < 0 || loadedEpoch[tp.partition()] != coordEpoch)) {
                    result = Errors.NOT_COORDINATOR; // the partition was unloaded or reloaded meanwhile
                }
                if (result == Errors.NONE) e.meta = next;
                else if (e.meta == null) txns.remove(next.transactionalId(), e);
            }
            done.accept(result);
        };
        Optional<Partition> part = partitions.get(tp);
        if (part.isEmpty()) {
            finish.accept(Errors.NOT_COORDINATOR);
            return;
        }
        List<Runnable> completions = new ArrayList<>(1);
        long required;
        try {
            replicationLeader.apply(tp).ifPresent(l -> l.checkEnoughReplicasForAppend((short) -1));
            Partition.AppendResult r = part.get().appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                    new SimpleRecord(time.milliseconds(), TxnLogCodec.key(next.transactionalId()),
                            TxnLogCodec.value(next))), completions::add);
            required = r.lastOffset() + 1;
        } catch (ApiException ex) {
            finish.accept(coordinatorError(Errors.forException(ex)));
            return;
        } finally {
            completions.forEach(Runnable::run);
        }
        partitions.watchProduce(new Replicated(tp, required, finish), List.of(tp));
    }

    /** Produce errors as Kafka's transaction coordinator reports them. */
    static Errors coordinatorError(Errors e) {
        return switch (e) {
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT ->
                    Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            default -> e == Errors.NONE ? e : Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    /** A state record waiting for its partition's high watermark. */
    private final class Replicated extends DelayedOperation {
        private final TopicPartition tp;
        private final long required;
        private final Consumer<Errors> done;

        Replicated(TopicPartition tp, long required, Consumer<Errors> done) {
            super(WRITE_TIMEOUT_MS);
            this.tp = tp;
            this.required = required;
            this.done = done;
        }

        @Override
        public boolean tryComplete() {
            return status().isPresent() && forceComplete();
        }

        @Override
        protected void onComplete() {
            done.accept(coordinatorError(status().orElse(Errors.REQUEST_TIMED_OUT)));
        }

        private Optional<Errors> status() {
            Optional<Partition> p = partitions.get(tp);
            if (p.isEmpty() || !p.get().isLeader()) return Optional.of(Errors.NOT_LEADER_OR_FOLLOWER);
            Optional<LeaderState> leader = replicationLeader.apply(tp);
            if (leader.isPresent()) return leader.get().ackStatus(required);
            return p.get().highWatermark() >= required ? Optional.of(Errors.NONE) : Optional.empty();
        }
    }

    // ---------------------------------------------------------------- markers

    /**
     * Writes the markers of a prepared transaction to every partition's leader (this node included), retrying the
     * partitions that fail, then persists COMPLETE_*. Stops when this node no longer coordinates the id in
     * {@code coordEpoch}: the next coordinator loads the prepared state and finishes it.
     */
    private void writeMarkers(TxnMetadata prepared, int coordEpoch) {
        Set<TopicPartition> remaining = new HashSet<>(prepared.partitions());
        async(() -> writeMarkers(prepared, coordEpoch, remaining));
    }

    private void async(Runnable task) {
        try {
            worker.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            log.debug("Coordinator closed; dropping {}", task);
        }
    }

    private void writeMarkers(TxnMetadata prepared, int coordEpoch, Set<TopicPartition> remaining) {
        int p = topic.partitionFor(prepared.transactionalId());
        synchronized (this) {
            if (loadedEpoch[p] != coordEpoch) return;
        }
        boolean commit = prepared.state() == TransactionState.PREPARE_COMMIT;
        Map<Integer, List<TopicPartition>> byLeader = new HashMap<>();
        for (TopicPartition tp : List.copyOf(remaining)) {
            Optional<Integer> leader = leaderOf.apply(tp);
            if (leader.isEmpty()) remaining.remove(tp); // the topic was deleted: nothing to end there
            else if (leader.get() >= 0) byLeader.computeIfAbsent(leader.get(), x -> new ArrayList<>()).add(tp);
        }
        List<CompletableFuture<Map<TopicPartition, Errors>>> sent = new ArrayList<>();
        byLeader.forEach((leader, tps) -> sent.add(markers.send(leader, prepared.producerId(),
                prepared.producerEpoch(), coordEpoch, commit, tps).exceptionally(ex -> Map.of())));
        CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0])).whenComplete((x, ex) -> {
            for (CompletableFuture<Map<TopicPartition, Errors>> f : sent) {
                f.join().forEach((tp, error) -> {
                    // An older epoch than the partition's means a later marker already ended this transaction there.
                    if (error == Errors.NONE || error == Errors.INVALID_PRODUCER_EPOCH) remaining.remove(tp);
                });
            }
            if (remaining.isEmpty()) {
                async(() -> complete(prepared, coordEpoch));
            } else {
                log.debug("Markers of {} still to write to {}; retrying", prepared.transactionalId(), remaining);
                time.scheduler().schedule("txn-markers-retry",
                        () -> async(() -> writeMarkers(prepared, coordEpoch, remaining)), RETRY_MS);
            }
        });
    }

    /** Persists COMPLETE_COMMIT/ABORT after every marker of {@code prepared} is written. */
    private void complete(TxnMetadata prepared, int coordEpoch) {
        Entry e;
        TxnMetadata next;
        synchronized (this) {
            e = txns.get(prepared.transactionalId());
            if (e == null || !prepared.equals(e.meta) || loadedEpoch[topic.partitionFor(prepared.transactionalId())] != coordEpoch) {
                return;
            }
            if (e.pending) { // a request is persisting meanwhile (it will be refused): try again shortly
                time.scheduler().schedule("txn-complete-retry", () -> async(() -> complete(prepared, coordEpoch)),
                        RETRY_MS);
                return;
            }
            next = prepared.complete(time.milliseconds());
            e.pending = true;
        }
        persist(e, next, coordEpoch, error -> {
            if (error == Errors.COORDINATOR_NOT_AVAILABLE) {
                time.scheduler().schedule("txn-complete-retry", () -> async(() -> complete(prepared, coordEpoch)),
                        RETRY_MS);
            }
        });
    }

    // ---------------------------------------------------------------- timeouts

    /** Aborts open transactions older than their timeout, fencing their producer (bumped epoch), as Kafka does. */
    void abortTimedOut() {
        long now = time.milliseconds();
        List<Map.Entry<Entry, TxnMetadata>> aborts = new ArrayList<>();
        List<Integer> epochs = new ArrayList<>();
        synchronized (this) {
            for (Entry e : txns.values()) {
                TxnMetadata m = e.meta;
                if (m == null || e.pending || m.state() != TransactionState.ONGOING) continue;
                if (now <= m.txnStartMs() + m.timeoutMs()) continue;
                int coordEpoch = loadedEpoch[topic.partitionFor(m.transactionalId())];
                if (coordEpoch < 0) continue;
                log.info("Aborting transaction of {} (producer {} epoch {}): open longer than its timeout {} ms",
                        m.transactionalId(), m.producerId(), m.producerEpoch(), m.timeoutMs());
                aborts.add(Map.entry(e, m.fence(bump(m.producerEpoch()), m.timeoutMs(), now)));
                epochs.add(coordEpoch);
                e.pending = true;
            }
        }
        for (int i = 0; i < aborts.size(); i++) {
            TxnMetadata next = aborts.get(i).getValue();
            int coordEpoch = epochs.get(i);
            persist(aborts.get(i).getKey(), next, coordEpoch, error -> {
                if (error == Errors.NONE) writeMarkers(next, coordEpoch);
            });
        }
    }

    // ---------------------------------------------------------------- loading

    /** Loads newly led partitions (once their high watermark allows) and forgets the ones no longer led. */
    void loadAndUnload() {
        for (int p = 0; p < loadedEpoch.length; p++) {
            Optional<Partition> part = partitions.get(new TopicPartition(TransactionStateTopic.NAME, p));
            if (part.isPresent() && part.get().isLeader()) {
                ensureLoaded(p, part.get());
            } else {
                synchronized (this) {
                    if (loadedEpoch[p] >= 0) unload(p);
                }
            }
        }
    }

    private void unload(int p) {
        loadedEpoch[p] = -1;
        txns.keySet().removeIf(id -> topic.partitionFor(id) == p);
        log.info("No longer coordinating the transactions of {}-{}", TransactionStateTopic.NAME, p);
    }

    /**
     * Whether partition {@code p} is loaded in the current leader epoch; loads it if its high watermark has reached
     * its log end (everything the previous coordinator wrote is then known committed) and finishes the prepared
     * transactions found there.
     */
    private boolean ensureLoaded(int p, Partition part) {
        List<TxnMetadata> prepared = new ArrayList<>();
        int epoch = part.leaderEpoch();
        synchronized (this) {
            if (loadedEpoch[p] == epoch) return true;
            long end = part.log().logEndOffset();
            if (part.highWatermark() < end) return false;
            if (loadedEpoch[p] >= 0) unload(p);
            Map<String, TxnMetadata> loaded = read(p, part, end);
            loaded.forEach((id, m) -> {
                Entry e = new Entry();
                e.meta = m;
                txns.put(id, e);
                if (m.state() == TransactionState.PREPARE_COMMIT || m.state() == TransactionState.PREPARE_ABORT) {
                    prepared.add(m);
                }
            });
            loadedEpoch[p] = epoch;
            log.info("Now coordinating {} transactional ids of {}-{} (leader epoch {}; {} to finish)", loaded.size(),
                    TransactionStateTopic.NAME, p, epoch, prepared.size());
        }
        for (TxnMetadata m : prepared) {
            // Seeded bug markers-skipped-on-failover: the new coordinator trusts that its predecessor wrote the
            // markers of what it prepared, and records the transaction complete without writing them.
            if (partitions.bugs().on(SeededBug.MARKERS_SKIPPED_ON_FAILOVER)) async(() -> complete(m, epoch));
            else writeMarkers(m, epoch);
        }
        return true;
    }

    /** The latest state of each transactional id in the partition's log below {@code end}. */
    private static Map<String, TxnMetadata> read(int p, Partition part, long end) {
        Map<String, TxnMetadata> out = new HashMap<>();
        long offset = part.log().logStartOffset();
        while (offset < end) {
            LogReadResult r = part.log().read(offset, 1 << 20, end);
            for (MutableRecordBatch b : r.records().batches()) {
                if (b.isControlBatch()) continue;
                for (Record rec : b) {
                    if (rec.offset() < offset || !rec.hasKey()) continue;
                    try {
                        String id = TxnLogCodec.transactionalId(rec.key());
                        if (id == null) continue;
                        if (rec.hasValue()) out.put(id, TxnLogCodec.decode(id, rec.value()));
                        else out.remove(id);
                    } catch (RuntimeException ex) {
                        log.warn("Skipping malformed record at offset {} of {}-{}: {}", rec.offset(),
                                TransactionStateTopic.NAME, p, ex.toString());
                    }
                }
            }
            if (r.nextOffset() <= offset) break;
            offset = r.nextOffset();
        }
        return out;
    }

    @Override
    public void close() {
        tasks.forEach(Scheduler.Cancellable::cancel);
        worker.shutdownNow();
    }
}
