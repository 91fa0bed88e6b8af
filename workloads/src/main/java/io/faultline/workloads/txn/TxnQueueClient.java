package io.faultline.workloads.txn;

import io.faultline.checker.history.MicroOp;
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
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One worker's transactional producer (transactional.id per worker, so a reopened client fences its previous
 * incarnation) and read_committed consumer (assigned every key, positions from its group's committed offsets).
 * A transaction runs its micro-ops in order, then commits with the consumer's positions sent to it, or aborts
 * (one in {@code abortOneIn}) and rewinds the consumer to where it began.
 *
 * <p>Outcomes: ok after a commit; fail after an abort, or an error before commit was asked (nothing can commit
 * then: the coordinator aborts it); info if commitTransaction itself failed (it may have committed). Any error
 * replaces both clients; the next op opens fresh ones while the old producer still closes (a zombie until fenced).
 */
public final class TxnQueueClient implements Client {
    private final String bootstrap;
    private final KeyMapping mapping;
    private final List<TopicPartition> partitions;
    private final String id;
    private final int timeoutMs;
    private final int abortOneIn;
    private final Random abortDraw;
    private KafkaProducer<Long, Long> producer;
    private KafkaConsumer<Long, Long> consumer;

    public TxnQueueClient(String bootstrap, KeyMapping mapping, int keys, String id, int timeoutMs, int abortOneIn,
                          long seed) {
        this.bootstrap = bootstrap;
        this.mapping = mapping;
        List<Integer> all = new ArrayList<>();
        for (int k = 0; k < keys; k++) all.add(k);
        this.partitions = mapping.partitionsOf(all);
        this.id = id;
        this.timeoutMs = timeoutMs;
        this.abortOneIn = abortOneIn;
        this.abortDraw = new Random(seed);
    }

    @Override
    public Completion invoke(String f, OpValue value) {
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

    private MicroOp poll() {
        Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
        for (ConsumerRecord<Long, Long> r : consumer.poll(Duration.ofMillis(100))) {
            int key = mapping.keyOf(r.topic(), r.partition());
            if (key >= 0) reads.computeIfAbsent(key, k -> new ArrayList<>()).add(new MicroOp.Record(r.offset(), r.value()));
        }
        return new MicroOp.Poll(reads);
    }

    private void open() {
        if (producer != null) return;
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
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, id + "-consumer");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, id);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
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
