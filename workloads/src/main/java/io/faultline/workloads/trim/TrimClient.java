package io.faultline.workloads.trim;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import io.faultline.workloads.queue.ErrorClassifier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One worker's producer (acks=all, idempotent) and Admin client for the trimmed topic's single partition, and a
 * consumer per read. A DeleteRecords cuts below this client's own last acknowledged offsets; outcomes are classified
 * as the queue's sends are ({@link ErrorClassifier}).
 */
public final class TrimClient implements Client {
    private final String bootstrap;
    private final TopicPartition partition;
    private final int timeoutMs;
    private final KafkaProducer<String, String> producer;
    private final Admin admin;
    /** This client's acknowledged offsets, newest last (a few are enough to pick a cut). */
    private final java.util.ArrayDeque<Long> acked = new java.util.ArrayDeque<>();

    public TrimClient(String bootstrap, String topic, int timeoutMs) {
        this.bootstrap = bootstrap;
        this.partition = new TopicPartition(topic, 0);
        this.timeoutMs = timeoutMs;
        this.producer = new KafkaProducer<>(io.faultline.workloads.kv.KvClient.producerProperties(bootstrap, topic + "-writer", timeoutMs),
                new StringSerializer(), new StringSerializer());
        Properties a = new Properties();
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        a.put(AdminClientConfig.CLIENT_ID_CONFIG, topic + "-trimmer");
        a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1000, timeoutMs / 2));
        a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        a.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        this.admin = Admin.create(a);
    }

    @Override
    public Completion invoke(String f, OpValue value) {
        TrimOps.Delete delete = null;
        try {
            switch (f) {
                case TrimOps.WRITE -> {
                    TrimOps.Write w = TrimOps.parseWrite(value);
                    long offset = producer.send(new ProducerRecord<>(partition.topic(), 0, null, Long.toString(w.value())))
                            .get(timeoutMs + 5000L, TimeUnit.MILLISECONDS).offset();
                    acked.addLast(offset);
                    while (acked.size() > 16) acked.removeFirst();
                    return Completion.ok(new TrimOps.Write(w.value(), offset).text());
                }
                case TrimOps.DELETE -> {
                    delete = TrimOps.parseDelete(value);
                    Long cut = cut(delete.keep());
                    if (cut == null) cut = cutFromLogEnd(delete.keep());
                    if (cut == null) return new Completion(OpType.FAIL, value, "nothing to cut: the log holds no more than " + delete.keep());
                    delete = new TrimOps.Delete(delete.keep(), cut, null);
                    long lowWatermark = admin.deleteRecords(java.util.Map.of(partition, RecordsToDelete.beforeOffset(cut)))
                            .lowWatermarks().get(partition).get(timeoutMs + 5000L, TimeUnit.MILLISECONDS).lowWatermark();
                    return Completion.ok(new TrimOps.Delete(delete.keep(), cut, lowWatermark).text());
                }
                case TrimOps.READ, TrimOps.FINAL_READ -> {
                    return Completion.ok(read(TrimOps.FINAL_READ.equals(f) ? Integer.MAX_VALUE : TrimOps.READ_LIMIT).text());
                }
                default -> {
                    return new Completion(OpType.FAIL, value, "unknown op " + f);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Completion(isRead(f) ? OpType.FAIL : OpType.INFO, delete == null ? value : delete.text(), "interrupted");
        } catch (Exception e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (isRead(f)) return new Completion(OpType.FAIL, value, cause.toString());
            ErrorClassifier.Classification c = ErrorClassifier.classify(cause);
            // a delete that may have happened keeps its cut in the history: the checker needs it
            return new Completion(c.outcome(), delete == null ? value : delete.text(), c.error());
        }
    }

    private static boolean isRead(String f) {
        return TrimOps.READ.equals(f) || TrimOps.FINAL_READ.equals(f);
    }

    /**
     * For a client that has no acknowledged write of its own (a fresh one, e.g. after the final drain's crash): the
     * offset keeping the log's last {@code keep} records, from its end offset (ListOffsets latest); null when the log
     * holds no more than that.
     */
    private Long cutFromLogEnd(int keep) throws Exception {
        long end = admin.listOffsets(java.util.Map.of(partition, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                .partitionResult(partition).get(timeoutMs + 5000L, TimeUnit.MILLISECONDS).offset();
        return end > keep ? end - keep : null;
    }

    /** The offset to delete before, keeping this client's last {@code keep} acknowledged records; null if it has none. */
    private Long cut(int keep) {
        if (acked.isEmpty()) return null;
        List<Long> mine = new ArrayList<>(acked);
        int first = mine.size() - keep; // the first of the kept records
        return first >= mine.size() ? mine.get(mine.size() - 1) + 1 : mine.get(Math.max(0, first));
    }

    /** The log start offset, then the records from there up to the end offset as the read began (at most {@code limit}). */
    private TrimOps.Read read(int limit) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, partition.topic() + "-reader");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(1000, timeoutMs / 2));
        List<TrimOps.Rec> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.assign(List.of(partition));
            long start = c.beginningOffsets(List.of(partition)).get(partition);
            long end = c.endOffsets(List.of(partition)).get(partition);
            c.seek(partition, start);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(timeoutMs, 30_000));
            while (c.position(partition) < end && out.size() < limit) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("read stopped at " + c.position(partition) + " of " + end);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= end || out.size() >= limit) break;
                    out.add(new TrimOps.Rec(r.offset(), value(r.value())));
                }
            }
            return new TrimOps.Read(start, out);
        }
    }

    /** A record's value as written; one that is not a number (nobody wrote it) reads as -1. */
    private static long value(String v) {
        try {
            return Long.parseLong(v);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(2));
        admin.close(Duration.ofSeconds(2));
    }
}
