package io.faultline.workloads.txn;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.queue.KeyMapping;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One process's transactional producer (transactional.id per process: clients this process reopens after an error
 * fence their previous incarnation; a process retired by an info completion is succeeded by one with a new id, see
 * TxnQueueWorkload) and read_committed consumer (assigned every key, positions from its group's committed offsets;
 * the group is named after the transactional.id, so a new process starts from the beginning).
 * A transaction runs its micro-ops in order, then commits with the consumer's positions sent to it, or aborts
 * (one in {@code abortOneIn}) and rewinds the consumer to where it began.
 *
 * <p>Outcomes: ok after a commit; fail after an abort, or an error before commit was asked (nothing can commit
 * then: the coordinator aborts it); info if commitTransaction itself failed (it may have committed). Any error
 * replaces both clients; the next op opens fresh ones while the old producer still closes (a zombie until fenced).
 *
 * <p>The final reads ({@link TxnFinalReads}) use three more ops: {@code crash} drops the clients, {@code assign}
 * (from the beginning) picks the keys to read, and {@code poll} reads them whole with a group-less read_committed
 * consumer, up to the end offsets it fetched first.
 */
public final class TxnQueueClient implements Client {
    private final String bootstrap;
    private final KeyMapping mapping;
    private final List<TopicPartition> partitions;
    private final String id;
    private final int timeoutMs;
    private final int abortOneIn;
    private final Random abortDraw;
    private final long finalReadMs;
    private final String clientRack;
    private List<TopicPartition> finalPartitions;
    private KafkaProducer<Long, Long> producer;
    private KafkaConsumer<Long, Long> consumer;

    public TxnQueueClient(String bootstrap, KeyMapping mapping, int keys, String id, int timeoutMs, int abortOneIn,
                          long seed, long finalReadMs) {
        this(bootstrap, mapping, keys, id, timeoutMs, abortOneIn, seed, finalReadMs, null);
    }

    /** {@code clientRack}: the rack its polling consumer names (null for none); its final reads name none. */
    public TxnQueueClient(String bootstrap, KeyMapping mapping, int keys, String id, int timeoutMs, int abortOneIn,
                          long seed, long finalReadMs, String clientRack) {
        this.bootstrap = bootstrap;
        this.clientRack = clientRack;
        this.mapping = mapping;
        List<Integer> all = new ArrayList<>();
        for (int k = 0; k < keys; k++) all.add(k);
        this.partitions = mapping.partitionsOf(all);
        this.id = id;
        this.timeoutMs = timeoutMs;
        this.abortOneIn = abortOneIn;
        this.abortDraw = new Random(seed);
        this.finalReadMs = finalReadMs;
        this.finalPartitions = partitions;
    }

    @Override
    public Completion invoke(String f, OpValue value) {
        switch (f) {
            case Op.CRASH -> {
                closeClients();
                return new Completion(OpType.INFO, value, "client crashed on purpose");
            }
            case Op.ASSIGN -> {
                if (!(value instanceof OpValue.Keys k) || !k.seekToBeginning()) {
                    return new Completion(OpType.FAIL, value, "final reads assign every key from the beginning");
                }
                finalPartitions = mapping.partitionsOf(k.keys());
                return Completion.ok(value);
            }
            case Op.POLL -> {
                return finalRead(value);
            }
            default -> { } // a transaction
        }
        if (!(value instanceof OpValue.Txn txn)) return new Completion(OpType.FAIL, value, "not a transaction: " + value);
        List<MicroOp> done = new ArrayList<>();
        boolean commitAsked = false;
        try {
            open();
        } catch (Exception e) {
            closeClients();
            return new Completion(OpType.FAIL, value, "opening the clients: " + e);
        }
        Map<TopicPartition, Long> start = new HashMap<>();
        try {
            for (TopicPartition tp : partitions) start.put(tp, consumer.position(tp, Duration.ofMillis(timeoutMs)));
            producer.beginTransaction();
            for (MicroOp m : txn.mops()) {
                if (m instanceof MicroOp.Send s) {
                    RecordMetadata md = producer.send(new ProducerRecord<>(mapping.topicOf(s.key()),
                            mapping.partitionOf(s.key()).partition(), (long) s.key(), s.value()))
                            .get(timeoutMs, TimeUnit.MILLISECONDS);
                    done.add(s.withOffset(md.offset()));
                } else {
                    done.add(poll());
                }
            }
            if (abortDraw.nextInt(abortOneIn) == 0) {
                producer.abortTransaction();
                for (Map.Entry<TopicPartition, Long> e : start.entrySet()) consumer.seek(e.getKey(), e.getValue());
                return new Completion(OpType.FAIL, new OpValue.Txn(done), "aborted on purpose");
            }
            Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
            for (TopicPartition tp : partitions) positions.put(tp, new OffsetAndMetadata(consumer.position(tp)));
            producer.sendOffsetsToTransaction(positions, consumer.groupMetadata());
            commitAsked = true;
            producer.commitTransaction();
            return Completion.ok(new OpValue.Txn(done));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return broken(txn, done, commitAsked, e);
        } catch (Exception e) {
            return broken(txn, done, commitAsked, e);
        }
    }

    /** After an error: what we know, and fresh clients next time. */
    private Completion broken(OpValue.Txn asked, List<MicroOp> done, boolean commitAsked, Exception e) {
        closeClients();
        List<MicroOp> known = new ArrayList<>(done);
        // the unfinished rest, as asked (a send without offset, a poll that read nothing)
        for (int i = done.size(); i < asked.mops().size(); i++) known.add(asked.mops().get(i));
        String why = e.getClass().getSimpleName() + ": " + e.getMessage();
        return new Completion(commitAsked ? OpType.INFO : OpType.FAIL, new OpValue.Txn(known), why);
    }

    /**
     * Reads {@link #finalPartitions} from the beginning up to their end offsets (read_committed: the LSO) with a
     * consumer of its own (no group, nothing committed). Ok with everything read, even if the deadline stopped it
     * first (the error then says which partitions fell short); fail only if nothing could be read at all.
     */
    private Completion finalRead(OpValue asked) {
        long deadline = System.nanoTime() + finalReadMs * 1_000_000L;
        Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
        Map<TopicPartition, Long> ends = Map.of();
        try (KafkaConsumer<Long, Long> reader = new KafkaConsumer<>(consumerProperties(id + "-final", null))) {
            reader.assign(finalPartitions);
            reader.seekToBeginning(finalPartitions);
            Map<TopicPartition, Long> target = endOffsets(reader, deadline);
            ends = target;
            Set<TopicPartition> left = new java.util.HashSet<>(finalPartitions);
            while (true) {
                left.removeIf(tp -> reader.position(tp, Duration.ofMillis(timeoutMs)) >= endsOf(tp, target));
                if (left.isEmpty() || System.nanoTime() - deadline >= 0) break;
                for (ConsumerRecord<Long, Long> r : reader.poll(Duration.ofMillis(200))) {
                    int key = mapping.keyOf(r.topic(), r.partition());
                    if (key >= 0) reads.computeIfAbsent(key, x -> new ArrayList<>()).add(new MicroOp.Record(r.offset(), r.value()));
                }
            }
            if (left.isEmpty()) return Completion.ok(OpValue.Txn.of(new MicroOp.Poll(reads)));
            return new Completion(OpType.OK, OpValue.Txn.of(new MicroOp.Poll(reads)),
                    TxnFinalReads.SHORT + " short of end offsets " + ends + " on " + left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return shortRead(asked, reads, ends, e);
        } catch (Exception e) {
            return shortRead(asked, reads, ends, e);
        }
    }

    private Completion shortRead(OpValue asked, Map<Integer, List<MicroOp.Record>> reads,
                                 Map<TopicPartition, Long> ends, Exception e) {
        String why = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (reads.isEmpty()) return new Completion(OpType.FAIL, asked, "final read: " + why);
        return new Completion(OpType.OK, OpValue.Txn.of(new MicroOp.Poll(reads)),
                TxnFinalReads.SHORT + " (" + why + "), end offsets " + ends);
    }

    /** The end offsets, retried until the deadline: the cluster may still be electing leaders after the heal. */
    private Map<TopicPartition, Long> endOffsets(KafkaConsumer<Long, Long> reader, long deadline)
            throws InterruptedException {
        while (true) {
            try {
                return reader.endOffsets(finalPartitions, Duration.ofMillis(timeoutMs));
            } catch (org.apache.kafka.common.errors.RetriableException e) {
                if (System.nanoTime() - deadline >= 0) throw e;
                Thread.sleep(100);
            }
        }
    }

    private static long endsOf(TopicPartition tp, Map<TopicPartition, Long> ends) {
        Long end = ends.get(tp);
        return end == null ? 0 : end;
    }

    private MicroOp poll() {
        Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
        for (ConsumerRecord<Long, Long> r : consumer.poll(Duration.ofMillis(100))) {
            int key = mapping.keyOf(r.topic(), r.partition());
            if (key >= 0) reads.computeIfAbsent(key, k -> new ArrayList<>()).add(new MicroOp.Record(r.offset(), r.value()));
        }
        return new MicroOp.Poll(reads);
    }

    private static Properties producerProperties(String bootstrap, String id, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, id + "-producer");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs * 2);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeoutMs * 4);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, LongSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, LongSerializer.class);
        return p;
    }

    /**
     * Before the workload's clock starts: the cluster's first InitProducerId creates its transaction log (Kafka:
     * 50 partitions, replicated) and loads a coordinator, which on a busy machine took longer than a whole short
     * run (a 20 s run committed nothing). Like creating the workload's topics, that is set-up, not the system under
     * faults. Bounded by {@code boundMs}; a failure is only reported: the workload then meets whatever is wrong.
     */
    public static String warmUp(String bootstrap, String id, int timeoutMs, int boundMs) {
        Properties p = producerProperties(bootstrap, id, timeoutMs);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.max(timeoutMs, boundMs));
        try (KafkaProducer<Long, Long> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            return null;
        } catch (RuntimeException e) {
            return e.toString();
        }
    }

    private void open() {
        if (producer != null) return;
        Properties p = producerProperties(bootstrap, id, timeoutMs);
        Properties c = consumerProperties(id + "-consumer", id);
        if (clientRack != null) c.put(ConsumerConfig.CLIENT_RACK_CONFIG, clientRack);
        try {
            producer = new KafkaProducer<>(p);
            producer.initTransactions(); // fences this worker's previous producer, aborting what it left open
            consumer = new KafkaConsumer<>(c);
            consumer.assign(partitions);
        } catch (RuntimeException e) {
            closeClients();
            throw e;
        }
    }

    /** A read_committed consumer's settings; {@code group} null for none. */
    private Properties consumerProperties(String clientId, String group) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        if (group != null) c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        return c;
    }

    private void closeClients() {
        if (producer != null) retire(producer);
        if (consumer != null) {
            try {
                consumer.close(Duration.ofSeconds(1));
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        producer = null;
        consumer = null;
    }

    /**
     * Closes a replaced producer in the background, giving it up to its delivery timeout: its successor starts at
     * once (its InitProducerId fences it) while it may still be retrying a batch the workload gave up waiting for, as
     * a worker presumed dead still does. Those late retries must be refused by the epoch the fencing set.
     */
    private void retire(KafkaProducer<Long, Long> old) {
        Thread t = new Thread(() -> {
            try {
                old.close(Duration.ofMillis(timeoutMs * 2L));
            } catch (RuntimeException ignored) {
                // already broken: closing is best effort
            }
        }, id + "-retired-producer");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closeClients();
    }
}
