package io.faultline.harness.audit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;

/**
 * A read-only audit of the APIs a consumer uses besides fetching, run once the cluster is healed, recovered and
 * idle: every workload partition is read from its beginning to its latest offset, and what the broker says about
 * that log is checked against the records themselves. Kafka's semantics, so it holds for every Kafka-protocol broker:
 * <ul>
 *   <li>{@value #LATEST}: ListOffsets(latest) is one past the last record (a queue topic has no control batches);</li>
 *   <li>{@value SeekAudit#SEEK_READ}: a consumer seeked to an offset of the log is given that record first
 *       ({@link SeekAudit});</li>
 *   <li>{@value #TIME_LOOKUP}: ListOffsets by timestamp (offsetsForTimes) gives the first offset whose record's
 *       timestamp is at or after the target, with that record's timestamp, or nothing past the last one;</li>
 *   <li>{@value #TOPIC_CONFIG}: DescribeConfigs returns the configs the workload created its topics with;</li>
 *   <li>{@value #GROUP_LISTING}: the workload's consumer group, if it has committed offsets, is listed by ListGroups
 *       and described by DescribeGroups in a live state (Empty once its members left).</li>
 * </ul>
 * The time index, the offset index and the config store are otherwise never asked by the workload, so a mistake there
 * stayed invisible. An error or a timeout decides nothing (a note), never an anomaly.
 */
public final class ApiAudit {
    public static final String CHECKER = "api-audit";
    public static final String LATEST = "audit/latest-offset", TIME_LOOKUP = "audit/time-lookup",
            TOPIC_CONFIG = "audit/topic-config", GROUP_LISTING = "audit/group-listing",
            COMMITTED_OFFSET = "audit/committed-offset";
    /**
     * Rounds of offsetsForTimes per partition: four that aim at the ends and at random records, then targets spread
     * evenly over the log (a record's own timestamp and one millisecond before the next's), so every stretch of a
     * multi-segment log (a segment, a truncated and rewritten tail) is asked about, not only a random point or two.
     */
    static final int LOOKUPS_PER_PARTITION = 16;
    private static final int MAX_FINDINGS = 40;

    /** One disagreement between what the broker answered and what its log holds. */
    public record Finding(String kind, String subject, String explanation) {}

    /**
     * What the audit did: partitions read in full, time lookups made, topics' configs checked, steps of the
     * {@link TopicLifecycleAudit} finished, findings, and notes on what it could not decide.
     */
    public record Report(int partitionsRead, int lookups, int configsChecked, int lifecycleSteps, List<Finding> findings,
                         List<String> notes, int seeks) {
        public static final String FILE = "audit.json";

        /** This report with the lifecycle audit's steps, findings and notes added (findings capped as the audit's). */
        public Report with(TopicLifecycleAudit.Result r) {
            List<Finding> f = new ArrayList<>(findings);
            f.addAll(r.findings());
            List<String> n = new ArrayList<>(notes);
            n.addAll(r.notes());
            if (f.size() > MAX_FINDINGS) {
                n.add((f.size() - MAX_FINDINGS) + " more findings left out");
                f = new ArrayList<>(f.subList(0, MAX_FINDINGS));
            }
            return new Report(partitionsRead, lookups, configsChecked, lifecycleSteps + r.steps(), f, n, seeks);
        }

        public Report {
            findings = findings == null ? List.of() : List.copyOf(findings);
            notes = notes == null ? List.of() : List.copyOf(notes);
        }
    }

    /** A record as read: its offset and timestamp. */
    record Read(long offset, long timestamp) {}

    private ApiAudit() {}

    /**
     * Runs the audit. Never throws: a failure becomes a note.
     *
     * @param topicConfigs the configs every audited topic was created with (empty: none checked)
     * @param budget       how long reading may take in all
     */
    public static Report run(String bootstrapServers, Collection<TopicPartition> partitions, Map<String, String> topicConfigs,
                             String group, long seed, Duration budget) {
        return run(bootstrapServers, partitions, topicConfigs, group, true, seed, budget);
    }

    /**
     * As above; {@code durable}: the run's settings promise that acknowledged writes survive (acks=all, no unclean
     * election), so the group's committed offsets cannot be past its partitions' ends ({@value #COMMITTED_OFFSET}).
     */
    public static Report run(String bootstrapServers, Collection<TopicPartition> partitions, Map<String, String> topicConfigs,
                             String group, boolean durable, long seed, Duration budget) {
        List<Finding> findings = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        int read = 0, lookups = 0, configs = 0, seeks = 0;
        if (partitions.isEmpty()) return new Report(0, 0, 0, 0, findings, List.of("no workload partition to audit"), 0);
        Map<TopicPartition, List<Read>> logs = Map.of();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(bootstrapServers))) {
            logs = readAll(consumer, partitions, budget, notes);
            Map<TopicPartition, Long> latest = consumer.endOffsets(logs.keySet(), Duration.ofSeconds(10));
            Random random = new Random(seed);
            for (var e : logs.entrySet()) {
                read++;
                findings.addAll(latest(e.getKey(), e.getValue(), latest.get(e.getKey())));
            }
            // one offsetsForTimes request per round, one target per partition each round
            for (int round = 0; round < LOOKUPS_PER_PARTITION; round++) {
                Map<TopicPartition, Long> targets = new HashMap<>();
                for (var e : logs.entrySet()) targets.put(e.getKey(), target(e.getValue(), round, random));
                Map<TopicPartition, OffsetAndTimestamp> got = consumer.offsetsForTimes(targets, Duration.ofSeconds(10));
                for (var t : targets.entrySet()) {
                    lookups++;
                    Finding f = timeLookup(t.getKey(), logs.get(t.getKey()), t.getValue(), got.get(t.getKey()));
                    if (f != null) findings.add(f);
                }
            }
            seeks = SeekAudit.run(consumer, logs, random, findings);
        } catch (RuntimeException e) {
            notes.add("reading and looking up offsets stopped: " + e);
        }
        if (!topicConfigs.isEmpty() || group != null || !logs.isEmpty()) {
            Admin admin = null;
            try {
                admin = Admin.create(adminProps(bootstrapServers));
                lookups += maxTimestamps(admin, logs, findings, notes);
                if (group != null) findings.addAll(group(admin, group, durable, notes));
                List<ConfigResource> topics = topicConfigs.isEmpty() ? List.of() : partitions.stream().map(TopicPartition::topic).distinct()
                        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
                Map<ConfigResource, Config> described = admin.describeConfigs(topics).all().get(20, java.util.concurrent.TimeUnit.SECONDS);
                for (var e : described.entrySet()) {
                    configs++;
                    findings.addAll(topicConfig(e.getKey().name(), e.getValue(), topicConfigs));
                }
            } catch (Exception e) {
                notes.add("DescribeConfigs or the group's audit failed: " + e);
            } finally {
                if (admin != null) admin.close(ADMIN_CLOSE);
            }
        }
        if (findings.size() > MAX_FINDINGS) {
            notes.add((findings.size() - MAX_FINDINGS) + " more findings left out");
            findings = new ArrayList<>(findings.subList(0, MAX_FINDINGS));
        }
        return new Report(read, lookups, configs, 0, findings, notes, seeks);
    }

    /**
     * The audit of a transactional workload's partitions: read in full by a read_committed consumer, then the seek
     * reads, which there must skip what aborted transactions wrote, also where a seek lands inside or after one that
     * began earlier (the broker must name every aborted transaction the fetched range overlaps). Offsets and
     * timestamps are not judged: control batches take offsets, and a time lookup answers by any record, aborted or not.
     */
    public static Report runCommitted(String bootstrapServers, Collection<TopicPartition> partitions, long seed, Duration budget) {
        List<Finding> findings = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        if (partitions.isEmpty()) return new Report(0, 0, 0, 0, findings, List.of("no workload partition to audit"), 0);
        int read = 0, seeks = 0;
        Properties p = consumerProps(bootstrapServers);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            Map<TopicPartition, List<Read>> logs = readAll(consumer, partitions, budget, notes);
            read = logs.size();
            seeks = SeekAudit.run(consumer, logs, new Random(seed), findings);
        } catch (RuntimeException e) {
            notes.add("reading and seeking stopped: " + e);
        }
        return new Report(read, 0, 0, 0, findings, notes, seeks);
    }

    /** Reads every partition from its beginning to its latest offset, within the budget; partitions not read in full are left out. */
    private static Map<TopicPartition, List<Read>> readAll(KafkaConsumer<byte[], byte[]> consumer,
                                                          Collection<TopicPartition> partitions, Duration budget, List<String> notes) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(10));
        Map<TopicPartition, List<Read>> logs = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        partitions.forEach(p -> logs.put(p, new ArrayList<>()));
        long deadline = System.nanoTime() + budget.toNanos();
        java.util.Set<TopicPartition> pending = new java.util.HashSet<>(partitions);
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                logs.get(new TopicPartition(r.topic(), r.partition())).add(new Read(r.offset(), r.timestamp()));
            }
            pending.removeIf(p -> consumer.position(p, Duration.ofSeconds(10)) >= end.get(p));
        }
        if (!pending.isEmpty()) {
            notes.add(pending.size() + " partitions not read to their latest offset in " + budget.toSeconds() + " s: not audited");
            pending.forEach(logs::remove);
        }
        return logs;
    }

    static List<Finding> latest(TopicPartition p, List<Read> log, Long latest) {
        if (latest == null || log.isEmpty()) return List.of();
        long last = log.get(log.size() - 1).offset();
        if (latest == last + 1) return List.of();
        return List.of(new Finding(LATEST, p.toString(), "ListOffsets(latest) answered " + latest + " but the last record"
                + " read from the beginning up to it is at offset " + last));
    }

    /**
     * The rounds' targets: a random record's own timestamp, one millisecond before another's, the first record's,
     * past the last one; then the records at evenly spread places in offset order, alternately their own timestamp
     * and one millisecond before it.
     */
    static long target(List<Read> log, int round, Random random) {
        if (log.isEmpty()) return 0;
        long max = log.stream().mapToLong(Read::timestamp).max().orElse(0);
        int spread = LOOKUPS_PER_PARTITION - 4;
        return switch (round) {
            case 0 -> log.get(random.nextInt(log.size())).timestamp();
            case 1 -> log.get(random.nextInt(log.size())).timestamp() - 1;
            case 2 -> log.get(0).timestamp();
            case 3 -> max + 1;
            default -> {
                int k = round - 4;
                int at = (int) Math.min(log.size() - 1, (long) ((k + 0.5) * log.size() / spread));
                yield log.get(at).timestamp() - (k % 2);
            }
        };
    }

    /** The record Kafka must answer for a timestamp: the first in offset order whose timestamp is at or after it. */
    static Read expected(List<Read> log, long target) {
        for (Read r : log) if (r.timestamp() >= target) return r;
        return null;
    }

    static Finding timeLookup(TopicPartition p, List<Read> log, long target, OffsetAndTimestamp got) {
        Read want = expected(log, target);
        if (want == null && got == null) return null;
        if (want != null && got != null && got.offset() == want.offset() && got.timestamp() == want.timestamp()) return null;
        String wanted = want == null ? "nothing (no record at or after it)" : "offset " + want.offset() + " (timestamp " + want.timestamp() + ")";
        String answered = got == null ? "nothing" : "offset " + got.offset() + " (timestamp " + got.timestamp() + ")";
        return new Finding(TIME_LOOKUP, p.toString(), "offsetsForTimes(" + target + ") answered " + answered + "; the log read"
                + " from its beginning says " + wanted);
    }

    /**
     * ListOffsets for the largest timestamp (KIP-734, brokers from 3.0) of every partition read: the answer must be a
     * record that carries the largest timestamp the log holds (with ties, any of them), with that timestamp. Brokers
     * that do not know the request are noted, not judged. Returns the lookups made.
     */
    private static int maxTimestamps(Admin admin, Map<TopicPartition, List<Read>> logs, List<Finding> findings,
                                     List<String> notes) {
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> asked = new HashMap<>();
        logs.forEach((p, log) -> { if (!log.isEmpty()) asked.put(p, org.apache.kafka.clients.admin.OffsetSpec.maxTimestamp()); });
        if (asked.isEmpty()) return 0;
        try {
            var got = admin.listOffsets(asked).all().get(20, java.util.concurrent.TimeUnit.SECONDS);
            got.forEach((p, info) -> {
                Finding f = maxTimestamp(p, logs.get(p), info.offset(), info.timestamp());
                if (f != null) findings.add(f);
            });
            return got.size();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnsupportedVersionException) {
                notes.add("the brokers do not answer ListOffsets for the largest timestamp: not judged");
            } else {
                notes.add("ListOffsets for the largest timestamp failed: " + e.getCause());
            }
        } catch (Exception e) {
            notes.add("ListOffsets for the largest timestamp failed: " + e);
        }
        return 0;
    }

    static Finding maxTimestamp(TopicPartition p, List<Read> log, long offset, long timestamp) {
        if (log == null || log.isEmpty()) return null;
        long max = log.stream().mapToLong(Read::timestamp).max().getAsLong();
        Read at = log.stream().filter(r -> r.offset() == offset).findFirst().orElse(null);
        if (timestamp == max && at != null && at.timestamp() == max) return null;
        long first = log.stream().filter(r -> r.timestamp() == max).findFirst().orElseThrow().offset();
        return new Finding(TIME_LOOKUP, p.toString(), "ListOffsets(largest timestamp) answered offset " + offset
                + " (timestamp " + timestamp + ")" + (at == null ? ", where the log read from its beginning has no record"
                : ", whose record has timestamp " + at.timestamp()) + "; the largest timestamp in the log is " + max
                + ", first at offset " + first);
    }

    /** A group with committed offsets must be listed, and described in a live state. */
    private static List<Finding> group(Admin admin, String group, boolean durable, List<String> notes) throws Exception {
        var committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(20, java.util.concurrent.TimeUnit.SECONDS);
        if (committed == null || committed.isEmpty()) {
            notes.add("group " + group + " has no committed offsets: its listing not judged");
            return List.of();
        }
        List<Finding> out = new ArrayList<>();
        if (durable) {
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
            committed.forEach((p, o) -> { if (o != null) latest.put(p, org.apache.kafka.clients.admin.OffsetSpec.latest()); });
            var ends = admin.listOffsets(latest).all().get(20, java.util.concurrent.TimeUnit.SECONDS);
            committed.forEach((p, o) -> {
                var end = ends.get(p);
                if (o != null && end != null) {
                    Finding f = committedOffset(group, p, o.offset(), end.offset());
                    if (f != null) out.add(f);
                }
            });
        }
        List<String> listed = admin.listGroups().all().get(20, java.util.concurrent.TimeUnit.SECONDS).stream()
                .map(org.apache.kafka.clients.admin.GroupListing::groupId).toList();
        var state = admin.describeConsumerGroups(List.of(group)).all().get(20, java.util.concurrent.TimeUnit.SECONDS)
                .get(group).groupState();
        out.addAll(groupListing(group, committed.size(), listed, state));
        return out;
    }

    /** A consumer commits a position it read up to, so a committed offset past the partition's end was never read. */
    static Finding committedOffset(String group, TopicPartition p, long committed, long latest) {
        if (committed <= latest) return null;
        return new Finding(COMMITTED_OFFSET, p.toString(), "group " + group + " committed offset " + committed
                + ", past the partition's latest offset " + latest);
    }

    static List<Finding> groupListing(String group, int committedPartitions, Collection<String> listed,
                                      org.apache.kafka.common.GroupState state) {
        List<Finding> out = new ArrayList<>();
        if (!listed.contains(group)) {
            out.add(new Finding(GROUP_LISTING, group, "has committed offsets for " + committedPartitions
                    + " partitions, but ListGroups lists only " + listed.size() + " groups, not it"));
        }
        if (state == null || state == org.apache.kafka.common.GroupState.DEAD || state == org.apache.kafka.common.GroupState.UNKNOWN) {
            out.add(new Finding(GROUP_LISTING, group, "has committed offsets for " + committedPartitions
                    + " partitions, but DescribeGroups says its state is " + state));
        }
        return out;
    }

    static List<Finding> topicConfig(String topic, Config config, Map<String, String> expected) {
        List<Finding> out = new ArrayList<>();
        Map<String, String> seen = new LinkedHashMap<>();
        for (ConfigEntry e : config.entries()) seen.put(e.name(), e.value());
        expected.forEach((name, value) -> {
            if (!value.equals(seen.get(name))) {
                out.add(new Finding(TOPIC_CONFIG, topic, "created with " + name + "=" + value + ", DescribeConfigs answered "
                        + (seen.containsKey(name) ? name + "=" + seen.get(name) : "no " + name)));
            }
        });
        return out;
    }

    /** The audit as a check of the run (null when nothing was audited). */
    public static io.faultline.checker.CheckResult toCheck(Report r) {
        if (r == null || (r.partitionsRead() == 0 && r.configsChecked() == 0 && r.lifecycleSteps() == 0)) return null;
        Map<String, Long> counts = new TreeMap<>();
        Map<String, List<io.faultline.checker.Example>> examples = new TreeMap<>();
        for (Finding f : r.findings()) {
            counts.merge(f.kind(), 1L, Long::sum);
            examples.computeIfAbsent(f.kind(), k -> new ArrayList<>())
                    .add(new io.faultline.checker.Example(f.kind(), null, f.subject() + ": " + f.explanation(), List.of()));
        }
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("partitions-read", r.partitionsRead());
        stats.put("time-lookups", r.lookups());
        stats.put("seek-reads", r.seeks());
        stats.put("topic-configs-checked", r.configsChecked());
        stats.put("lifecycle-steps", r.lifecycleSteps());
        if (!r.notes().isEmpty()) stats.put("notes", r.notes());
        return new io.faultline.checker.CheckResult(CHECKER, r.findings().isEmpty() ? io.faultline.checker.Verdict.VALID
                : io.faultline.checker.Verdict.INVALID, counts, java.util.Set.of(), examples, stats, null);
    }

    private static Properties consumerProps(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "faultline-audit");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    /**
     * How long closing an audit's Admin client may wait for its calls still pending. Admin.close() waits for them
     * without bound, and on a broken cluster one kept a run in its audit for minutes after its verdict's data was in.
     */
    static final java.time.Duration ADMIN_CLOSE = java.time.Duration.ofSeconds(5);

    private static Properties adminProps(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "faultline-audit-admin");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return p;
    }
}
