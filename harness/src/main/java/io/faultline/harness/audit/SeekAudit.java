package io.faultline.harness.audit;

import io.faultline.harness.audit.ApiAudit.Finding;
import io.faultline.harness.audit.ApiAudit.Read;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Reads from the middle ({@value #SEEK_READ}): a consumer that seeks to an offset the log holds must be given that
 * record first, with the timestamp the read from the beginning saw there. The workload's readers start at the
 * beginning, the end or a committed offset, so an offset index entry that points a fetch at the wrong place, a segment
 * read from the wrong position, or a batch handed back from its middle were only met where a reader happened to
 * start. Each round seeks every partition once: to its first record, its last, then records drawn at random and at
 * evenly spread places (segment and index boundaries included, the logs being many small segments).
 */
final class SeekAudit {
    static final String SEEK_READ = "audit/seek-read";
    static final int SEEKS_PER_PARTITION = 8;
    /** How long a round may poll for every partition's first record. */
    private static final Duration ROUND = Duration.ofSeconds(10);

    private SeekAudit() {}

    /** The offset a round seeks a partition to. */
    static long target(List<Read> log, int round, Random random) {
        return switch (round) {
            case 0 -> log.get(0).offset();
            case 1 -> log.get(log.size() - 1).offset();
            default -> round % 2 == 0 ? log.get(random.nextInt(log.size())).offset()
                    : log.get((int) Math.min(log.size() - 1, (long) (round - 2) * log.size() / (SEEKS_PER_PARTITION - 2))).offset();
        };
    }

    /**
     * Seeks the consumer (assigned every partition of {@code logs}) round by round; adds a finding per wrong first
     * record. Returns how many seeks were judged; a partition that returns nothing within a round is not judged then.
     */
    static int run(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, List<Read>> logs, Random random,
                   List<Finding> findings) {
        int judged = 0;
        Map<TopicPartition, List<Read>> nonEmpty = new HashMap<>();
        logs.forEach((p, log) -> { if (!log.isEmpty()) nonEmpty.put(p, log); });
        if (nonEmpty.isEmpty()) return 0;
        for (int round = 0; round < SEEKS_PER_PARTITION; round++) {
            Map<TopicPartition, Long> targets = new HashMap<>();
            for (var e : nonEmpty.entrySet()) {
                long t = target(e.getValue(), round, random);
                targets.put(e.getKey(), t);
                consumer.seek(e.getKey(), t);
            }
            Map<TopicPartition, ConsumerRecord<byte[], byte[]>> first = new HashMap<>();
            long deadline = System.nanoTime() + ROUND.toNanos();
            while (first.size() < targets.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    first.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r);
                }
            }
            for (var e : first.entrySet()) {
                judged++;
                Finding f = judge(e.getKey(), nonEmpty.get(e.getKey()), targets.get(e.getKey()), e.getValue().offset(),
                        e.getValue().timestamp());
                if (f != null) findings.add(f);
            }
        }
        return judged;
    }

    /** A finding unless the first record after a seek is the log's first at or after the target, with its timestamp. */
    static Finding judge(TopicPartition p, List<Read> log, long target, long offset, long timestamp) {
        Read want = null;
        for (Read r : log) {
            if (r.offset() >= target) {
                want = r;
                break;
            }
        }
        if (want == null) return null; // past the end read from the beginning: nothing to compare with
        if (want.offset() == offset && want.timestamp() == timestamp) return null;
        return new Finding(SEEK_READ, p.toString(), "a consumer that seeked to offset " + target + " was first given offset "
                + offset + " (timestamp " + timestamp + "); the log read from its beginning has offset " + want.offset()
                + " (timestamp " + want.timestamp() + ") there");
    }
}
