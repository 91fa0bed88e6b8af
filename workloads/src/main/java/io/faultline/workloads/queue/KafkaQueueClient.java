package io.faultline.workloads.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One worker's Kafka client: a real KafkaProducer and KafkaConsumer (kafka-clients 4.4.0). Keys and values travel
 * as decimal strings; the record key is the workload key, the record value the workload value.
 */
public final class KafkaQueueClient implements Client {
    /** Reported for a record whose payload is not one of our numbers (a broker returning garbage). */
    public static final long UNPARSEABLE = -1;

    private final QueueWorkloadConfig cfg;
    private final TopicManager topics;
    private final KeyMapping mapping;
    private final KafkaProducer<String, String> producer;
    private KafkaConsumer<String, String> consumer;
    private final String id;
    private final int thread;
    private boolean hasAssignment;
    private boolean hasSubscription;
    /** The consumer's group.id (null without one); a subscribe's completion names it, for the group-rewind check. */
    private String group;

    public KafkaQueueClient(QueueWorkloadConfig cfg, TopicManager topics, int thread) {
        this.cfg = cfg;
        this.topics = topics;
        this.mapping = topics.mapping();
        this.id = cfg.topicPrefix() + "-w" + thread;
        this.thread = thread;
        this.producer = new KafkaProducer<>(producerProps(cfg, thread, id), new StringSerializer(),
                new StringSerializer());
        Properties consumerProps = consumerProps(cfg, thread, id);
        this.group = consumerProps.getProperty(ConsumerConfig.GROUP_ID_CONFIG); // as the client sees it, extras included
        try {
            this.consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer());
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * The producer of worker {@code thread}: the workers differ in how they batch and compress, so the broker code
     * for each shape runs in every run. Even workers send batches of one or two records ({@code batch.size=1}), so an
     * op's records of one partition leave as several batches, pipelined up to kafka-clients' 5 requests in flight:
     * the producer-state code that needs (sequence numbers across in-flight batches, a retry of the first after the
     * second landed) runs. Odd workers keep the client's batching, so an op's records of one partition share one
     * multi-record batch. Measured against broker-impl (100 ops of 3 records to one partition, kafka-clients 4.4): 204
     * requests with batch.size=1 against 109 with the default (and 104 with batch.size=256 and linger.ms=2, which
     * still put a whole op in one batch). Workers 2, 3 and 4 of every 5 compress (gzip, lz4, snappy: codecs every Kafka
     * release since 0.8.2 accepts; zstd needs 2.1), so compressed batches are validated, replicated, recovered and served under faults.
     * {@code --producer-prop} overrides each setting for every worker.
     */
    static Properties producerProps(QueueWorkloadConfig cfg, int thread, String id) {
        Properties p = producerProps(cfg, id);
        Map<String, String> set = cfg.settings().extraProducer();
        if (thread % 2 == 0 && !set.containsKey(ProducerConfig.BATCH_SIZE_CONFIG)) {
            p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1);
        }
        if (!set.containsKey(ProducerConfig.COMPRESSION_TYPE_CONFIG)) {
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, switch (thread % 5) {
                case 2 -> "gzip";
                case 3 -> "lz4";
                case 4 -> "snappy";
                default -> "none";
            });
        }
        return p;
    }

    static Properties producerProps(QueueWorkloadConfig cfg, String id) {
        QueueSettings s = cfg.settings();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, id + "-producer");
        p.put(ProducerConfig.ACKS_CONFIG, s.acks());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, s.idempotence());
        p.put(ProducerConfig.RETRIES_CONFIG, s.retries());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, s.requestTimeoutMs());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, s.deliveryTimeoutMs());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0); // one op, one batch: latency matters more than throughput
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, s.requestTimeoutMs()); // bounds the metadata wait in send()
        // Fast failure detection (FACTS.md): quick retries and reconnects.
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 100);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 100);
        // A killed node's address stops answering (no RST): without a short connect timeout (default 10 s,
        // up to 30 s) clients wait that long on the dead node before trying another.
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000);
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000);
        p.putAll(s.extraProducer());
        return p;
    }

    /**
     * The consumer of worker {@code thread}. With shaped records, the workers' fetches differ too: worker 1 of every 5
     * asks for at most 32 KiB per partition per fetch, less than the largest records (Kafka still returns a first
     * batch larger than that, whole: KIP-74), so a broker that cuts it, or serves nothing, shows here; worker 3 of every
     * 5 asks for at least 8 KiB per fetch and waits up to 200 ms for it, so the broker parks its fetches until enough
     * arrives (Kafka's delayed fetch), through leader changes. A worker given a rack (QueueSettings.clientRacks)
     * names it, so rack-aware brokers may send it to a follower. Settings given as extras win.
     */
    static Properties consumerProps(QueueWorkloadConfig cfg, int thread, String id) {
        Properties p = consumerProps(cfg, id);
        Map<String, String> set = cfg.settings().extraConsumer();
        if (cfg.shapedRecords() && thread % 5 == 1 && !set.containsKey(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG)) {
            p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, SMALL_FETCH_BYTES);
        }
        if (cfg.shapedRecords() && thread % 5 == 3 && !set.containsKey(ConsumerConfig.FETCH_MIN_BYTES_CONFIG)) {
            p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 8 * 1024);
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
        }
        String rack = cfg.settings().clientRack(thread);
        if (rack != null && !set.containsKey(ConsumerConfig.CLIENT_RACK_CONFIG)) p.put(ConsumerConfig.CLIENT_RACK_CONFIG, rack);
        return p;
    }

    /** The per-partition fetch size of the workers that ask for little (see {@link #consumerProps(QueueWorkloadConfig, int, String)}). */
    static final int SMALL_FETCH_BYTES = 32 * 1024;

    static Properties consumerProps(QueueWorkloadConfig cfg, String id) {
        QueueSettings s = cfg.settings();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, id + "-consumer");
        if (s.subscribes()) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, cfg.groupId());
            GroupDeparture.memberTimeouts(p, s.extraConsumer());
        }
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false); // we commit after each poll, in SUBSCRIBE mode
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, s.isolationLevel());
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, s.maxPollRecords());
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, s.requestTimeoutMs());
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, s.requestTimeoutMs());
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 100);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 100);
        p.put(ConsumerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000);
        p.put(ConsumerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000);
        p.putAll(s.extraConsumer());
        return p;
    }

    @Override
    public Completion invoke(String f, OpValue value) {
        try {
            return switch (f) {
                case Op.SEND -> send((OpValue.Txn) value);
                case Op.POLL -> poll(value);
                case Op.ASSIGN -> assign((OpValue.Keys) value);
                case Op.SUBSCRIBE -> subscribe((OpValue.Keys) value);
                case Op.CRASH -> new Completion(OpType.INFO, value, "client crashed on purpose");
                default -> new Completion(OpType.FAIL, value, "unknown operation " + f);
            };
        } catch (RuntimeException e) {
            ErrorClassifier.Classification c = ErrorClassifier.classify(e);
            return new Completion(c.outcome(), value, c.error());
        }
    }

    private Completion send(OpValue.Txn txn) {
        List<MicroOp> mops = txn.mops();
        List<Integer> keys = new ArrayList<>();
        for (MicroOp m : mops) {
            keys.add(((MicroOp.Send) m).key());
        }
        topics.ensure(keys); // throws DefiniteFailure before anything is sent
        int n = mops.size();
        List<Future<RecordMetadata>> futures = new ArrayList<>(n);
        Throwable[] errors = new Throwable[n];
        for (int i = 0; i < n; i++) {
            MicroOp.Send s = (MicroOp.Send) mops.get(i);
            TopicPartition tp = mapping.partitionOf(s.key());
            try {
                futures.add(producer.send(cfg.shapedRecords()
                        ? new ProducerRecord<>(tp.topic(), tp.partition(), Integer.toString(s.key()),
                                RecordShapes.value(s.key(), s.value()), RecordShapes.headers(s.key(), s.value()))
                        : new ProducerRecord<>(tp.topic(), tp.partition(), Integer.toString(s.key()), Long.toString(s.value()))));
            } catch (RuntimeException e) {
                futures.add(null);
                errors[i] = e;
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cfg.settings().deliveryTimeoutMs() + 5_000L);
        List<MicroOp> done = new ArrayList<>(n);
        boolean anyOk = false;
        boolean anyIndefinite = false;
        String firstError = null;
        for (int i = 0; i < n; i++) {
            MicroOp.Send s = (MicroOp.Send) mops.get(i);
            if (futures.get(i) != null) {
                try {
                    RecordMetadata md = futures.get(i).get(Math.max(0, deadline - System.nanoTime()),
                            TimeUnit.NANOSECONDS);
                    done.add(s.withOffset(md.hasOffset() ? md.offset() : null)); // acks=0: no offset
                    anyOk = true;
                    continue;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    errors[i] = e;
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    errors[i] = e;
                }
            }
            ErrorClassifier.Classification c = ErrorClassifier.classify(errors[i]);
            anyIndefinite |= c.outcome() == OpType.INFO;
            firstError = firstError == null ? c.error() : firstError;
            done.add(s);
        }
        OpValue.Txn result = new OpValue.Txn(done);
        if (firstError == null) {
            return Completion.ok(result);
        }
        // Sends are not atomic: if any part landed or might have, the op as a whole is indeterminate.
        return new Completion(anyOk || anyIndefinite ? OpType.INFO : OpType.FAIL, result, firstError);
    }

    private Completion poll(OpValue value) {
        if (!hasAssignment && !hasSubscription) {
            return new Completion(OpType.FAIL, value, "nothing assigned or subscribed yet");
        }
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(cfg.settings().pollMs()));
        Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
        for (TopicPartition tp : records.partitions()) {
            int key = mapping.keyOf(tp.topic(), tp.partition());
            if (key < 0) {
                continue; // not one of our topics
            }
            List<MicroOp.Record> recs = new ArrayList<>();
            for (ConsumerRecord<String, String> r : records.records(tp)) {
                recs.add(new MicroOp.Record(r.offset(), cfg.shapedRecords() ? RecordShapes.parse(key, r.value(), r.headers())
                        : parse(r.value())));
            }
            reads.put(key, recs);
        }
        OpValue.Txn result = OpValue.Txn.of(MicroOp.poll(reads));
        if (hasSubscription) {
            try {
                consumer.commitSync(Duration.ofMillis(cfg.settings().requestTimeoutMs()));
            } catch (RuntimeException e) {
                // The records were read, but the group position may not have moved: indeterminate, keep the reads.
                return new Completion(OpType.INFO, result, "commit failed: " + ErrorClassifier.describe(e));
            }
        }
        return Completion.ok(result);
    }

    private static long parse(String v) {
        try {
            return v == null ? UNPARSEABLE : Long.parseLong(v);
        } catch (NumberFormatException e) {
            return UNPARSEABLE;
        }
    }

    private Completion assign(OpValue.Keys keys) {
        topics.ensure(keys.keys());
        List<TopicPartition> tps = mapping.partitionsOf(keys.keys());
        if (hasSubscription) {
            consumer.unsubscribe(); // assign and subscribe are mutually exclusive
            hasSubscription = false;
        }
        consumer.assign(tps);
        hasAssignment = !tps.isEmpty();
        if (keys.seekToBeginning()) {
            consumer.seekToBeginning(tps);
        } else if (keys.seekToEnd()) {
            consumer.seekToEnd(tps); // lazy: the first poll starts at the ends as they are then
        }
        return Completion.ok(keys);
    }

    private Completion subscribe(OpValue.Keys keys) {
        topics.ensure(keys.keys());
        if (keys.seekToBeginning() || keys.group() != null) {
            // A subscribe "from the beginning" joins a consumer group of its own, new for this op: with no
            // committed offsets it reads from the earliest (auto.offset.reset), and it is the group's only member.
            // A subscribe naming a group is a takeover: a new member joins that group and the consumer so far departs
            // without leaving it, as a crashed one would (see GroupDeparture); the new member goes on from the
            // group's committed offsets once the coordinator has expired the old one.
            Properties p = consumerProps(cfg, thread, id);
            String joined = keys.group() != null ? keys.group() : cfg.groupId() + "-new-" + java.util.UUID.randomUUID();
            p.put(ConsumerConfig.GROUP_ID_CONFIG, joined);
            GroupDeparture.mayDepart(p, cfg.settings().extraConsumer());
            KafkaConsumer<String, String> fresh = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
            if (keys.group() != null) GroupDeparture.closeWithoutLeaving(consumer);
            else consumer.close(Duration.ZERO);
            consumer = fresh;
            group = joined;
            hasAssignment = false;
        }
        if (hasAssignment) {
            consumer.unsubscribe();
            hasAssignment = false;
        }
        consumer.subscribe(mapping.topicsOf(keys.keys()));
        hasSubscription = !keys.keys().isEmpty();
        return Completion.ok(keys.withGroup(group));
    }

    @Override
    public void close() {
        try {
            producer.close(Duration.ofSeconds(2));
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }
}
