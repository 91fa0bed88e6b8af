package io.faultline.workloads.kv;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.queue.ErrorClassifier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * One worker's producer (acks=all, idempotent) for the compacted topic, and a consumer for the final read of the whole
 * partition. A write's outcome is classified as the queue's sends are ({@link ErrorClassifier}). With transactions,
 * the writes {@link KvOps#transactional} picks go through a transactional producer of the worker's own, one
 * transaction each, and those {@link KvOps#aborted} picks are aborted (a fail: never visible); the final read is then
 * read_committed, so a compacted log's aborted records and markers are judged too.
 */
public final class KvClient implements Client {
    private static final java.util.concurrent.atomic.AtomicInteger INSTANCES = new java.util.concurrent.atomic.AtomicInteger();
    private final String bootstrap;
    private final String topic;
    private final int timeoutMs;
    private final KafkaProducer<String, String> producer;
    private final boolean transactions;
    private final String transactionalId;
    private KafkaProducer<String, String> txnProducer;

    public KvClient(String bootstrap, String topic, int timeoutMs) {
        this(bootstrap, topic, timeoutMs, false);
    }

    public KvClient(String bootstrap, String topic, int timeoutMs, boolean transactions) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.timeoutMs = timeoutMs;
        this.transactions = transactions;
        this.transactionalId = topic + "-txn-" + INSTANCES.incrementAndGet();
        this.producer = new KafkaProducer<>(producerProperties(bootstrap, topic + "-writer", timeoutMs),
                new StringSerializer(), new StringSerializer());
    }

    /**
     * A side workload's producer: acks=all (idempotent by default), no lingering, every wait bounded by the client
     * timeout so an op ends (ok, fail or info) within it, quick reconnects to a node back from a fault.
     */
    public static Properties producerProperties(String bootstrap, String clientId, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1000, timeoutMs / 2));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.max(1000, timeoutMs / 2));
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 100);
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000);
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000);
        return p;
    }

    @Override
    public Completion invoke(String f, OpValue value) {
        try {
            if (KvOps.WRITE.equals(f)) {
                KvOps.Rec r = KvOps.parseWrite(value);
                if (transactions && KvOps.transactional(r.value())) return writeInTransaction(r, value);
                long offset = producer.send(new ProducerRecord<>(topic, 0, Integer.toString(r.key()), valueOf(r)))
                        .get(timeoutMs + 5000L, TimeUnit.MILLISECONDS).offset();
                return Completion.ok(KvOps.write(new KvOps.Rec(r.key(), r.value(), offset)));
            }
            if (KvOps.READ.equals(f)) return Completion.ok(KvOps.readResult(readAll()));
            return new Completion(OpType.FAIL, value, "unknown op " + f);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Completion(KvOps.READ.equals(f) ? OpType.FAIL : OpType.INFO, value, "interrupted");
        } catch (Exception e) {
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (KvOps.READ.equals(f)) return new Completion(OpType.FAIL, value, cause.toString());
            ErrorClassifier.Classification c = ErrorClassifier.classify(cause);
            return new Completion(c.outcome(), value, c.error());
        }
    }

    /**
     * One write as one transaction. Until the commit is asked for nothing can become visible (a failure then is a fail:
     * the next producer of this transactional id, or the coordinator's timeout, aborts what was left open); a failed
     * commit is indeterminate. Any failure closes the producer; the next write opens it again, fencing the old one.
     */
    private Completion writeInTransaction(KvOps.Rec r, OpValue value) throws InterruptedException {
        boolean committing = false;
        try {
            if (txnProducer == null) {
                Properties p = producerProperties(bootstrap, transactionalId, timeoutMs);
                p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
                p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 15_000);
                txnProducer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
                txnProducer.initTransactions();
            }
            txnProducer.beginTransaction();
            var sent = txnProducer.send(new ProducerRecord<>(topic, 0, Integer.toString(r.key()), valueOf(r)));
            if (KvOps.aborted(r.value())) {
                txnProducer.abortTransaction();
                return new Completion(OpType.FAIL, value, KvOps.ABORTED);
            }
            long offset = sent.get(timeoutMs + 5000L, TimeUnit.MILLISECONDS).offset();
            committing = true;
            txnProducer.commitTransaction();
            return Completion.ok(KvOps.write(new KvOps.Rec(r.key(), r.value(), offset)));
        } catch (InterruptedException e) {
            closeTransactional();
            throw e;
        } catch (Exception e) {
            closeTransactional();
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            return new Completion(committing ? OpType.INFO : OpType.FAIL, value, cause.toString());
        }
    }

    private void closeTransactional() {
        if (txnProducer == null) return;
        try {
            txnProducer.close(Duration.ZERO);
        } catch (RuntimeException ignored) {
            // best effort: the next producer of the id fences it
        }
        txnProducer = null;
    }

    /** The whole partition from its beginning up to its end offset as the read starts; throws if it cannot get there. */
    private List<KvOps.Rec> readAll() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, topic + "-reader");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        if (transactions) p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        TopicPartition tp = new TopicPartition(topic, 0);
        List<KvOps.Rec> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (c.position(tp) < end) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("read stopped at " + c.position(tp) + " of " + end);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(parse(r));
                }
            }
        }
        return out;
    }

    /** The record value of a write: null for a tombstone (a negative number). */
    private static String valueOf(KvOps.Rec r) {
        return r.value() < 0 ? null : Long.toString(r.value());
    }

    /**
     * A record as read; a tombstone reads as {@link KvOps#TOMBSTONE}; one whose key or value is not a number (nobody
     * wrote it) reads as key -1, value -1.
     */
    private static KvOps.Rec parse(ConsumerRecord<String, String> r) {
        try {
            if (r.value() == null) return new KvOps.Rec(Integer.parseInt(r.key()), KvOps.TOMBSTONE, r.offset());
            return new KvOps.Rec(Integer.parseInt(r.key()), Long.parseLong(r.value()), r.offset());
        } catch (RuntimeException e) {
            return new KvOps.Rec(-1, -1, r.offset());
        }
    }

    @Override
    public void close() {
        closeTransactional();
        producer.close(Duration.ofSeconds(2));
    }
}
