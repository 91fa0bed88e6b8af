package io.faultline.harness.audit;

import io.faultline.harness.audit.ApiAudit.Finding;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The admin operations a Kafka user runs on a live cluster, each checked against what Kafka promises, on scratch topics
 * of the run (never the workload's), once the cluster is healed and idle:
 * <ul>
 *   <li>{@value #PARTITION_COUNT}: CreatePartitions from 1 to 3 gives exactly 3 partitions, each with a leader and the
 *       topic's replication factor, and each new partition takes a write at offset 0 that reads back;</li>
 *   <li>{@value #RECREATED_TOPIC}: a topic deleted and created again under its name is gone in between and comes back
 *       empty: none of the old records, offsets from 0;</li>
 *   <li>{@value #DELETE_RECORDS}: DeleteRecords before offset k answers low watermark k, the log then starts at k for
 *       ListOffsets(earliest) and for a read from the beginning, appends go on after the old end, and a deletion past
 *       the high watermark is refused;</li>
 *   <li>{@value #CONFIG_CHANGE}: IncrementalAlterConfigs on a topic is described back, its deletion restores the
 *       default, a value of the wrong type or outside a config's choices is refused, and a group config, where the
 *       broker has them, is described back;</li>
 *   <li>{@value #VALIDATE_ONLY}: CreateTopics, CreatePartitions and IncrementalAlterConfigs with validate_only change
 *       nothing;</li>
 *   <li>{@value #REFUSAL}: requests Kafka has refused the same way since the Admin API began are refused with its
 *       error: a topic created twice (TOPIC_ALREADY_EXISTS), partitions taken away (INVALID_PARTITIONS), more replicas
 *       than brokers (INVALID_REPLICATION_FACTOR), a topic deleted that does not exist (UNKNOWN_TOPIC_OR_PARTITION),
 *       an unknown topic config set (INVALID_CONFIG). A client acts on the error code: a refusal that names another
 *       error, or none, sends it down the wrong path.</li>
 *   <li>{@value GroupAdminAudit#GROUP_ADMIN}: a consumer group's offsets reset, deleted and the group deleted with the
 *       admin API, as {@link GroupAdminAudit} describes;</li>
 *   <li>{@value ClientQuotaAudit#CLIENT_QUOTA}: client quotas set, described back and removed ({@link ClientQuotaAudit}).</li>
 * </ul>
 * Creating, growing, trimming and deleting topics reach the controller's records, log creation and deletion on disk, the
 * log start offset and the config store, which the queue workload never asks for. A timeout or a retriable error
 * decides nothing (a note); an operation refused outright, or an answer that contradicts the promise, is a finding.
 */
public final class TopicLifecycleAudit {
    public static final String PARTITION_COUNT = "audit/partition-count", RECREATED_TOPIC = "audit/recreated-topic",
            DELETE_RECORDS = "audit/delete-records", CONFIG_CHANGE = "audit/config-change", VALIDATE_ONLY = "audit/validate-only",
            REFUSAL = "audit/refusal";
    static final int GROWN_TO = 3, OLD_RECORDS = 20, NEW_RECORDS = 3, TRIM_RECORDS = 40, TRIM_BEFORE = 25;

    /** What the audit did: the steps it finished, its findings and notes. */
    /** @param seconds how long each step took, in order ("grow 1.2 s, ..."), for the run log; not judged */
    public record Result(int steps, List<Finding> findings, List<String> notes, String seconds) {
        public Result(int steps, List<Finding> findings, List<String> notes) {
            this(steps, findings, notes, "");
        }
    }

    private final String bootstrap;
    final String prefix;
    private final short replicationFactor;
    final long seed;
    final Duration wait;
    // steps run side by side (see run): what they report is shared
    final List<Finding> findings = java.util.Collections.synchronizedList(new ArrayList<>());
    final List<String> notes = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<String> timings = java.util.Collections.synchronizedList(new ArrayList<>());
    private final java.util.concurrent.atomic.AtomicInteger steps = new java.util.concurrent.atomic.AtomicInteger();

    private TopicLifecycleAudit(String bootstrap, String prefix, short replicationFactor, long seed, Duration wait) {
        this.bootstrap = bootstrap;
        this.prefix = prefix;
        this.replicationFactor = replicationFactor;
        this.seed = seed;
        this.wait = wait;
    }

    /**
     * Runs every step on topics named {@code prefix-audit-*}. Never throws. The steps mostly wait for metadata to
     * spread, each on topics of its own, so they run side by side: growing, renewing, the group admin then client
     * quotas, and trimming then reconfiguring; the validate-only step last, as it names the grown and the trimmed topics.
     *
     * @param wait how long one step may wait for the cluster to show what it accepted
     */
    /** The infix of every topic this audit makes ({@code prefix-audit-grow}, …). */
    static final String SCRATCH_INFIX = "-audit-";

    /** Whether a topic is one of this audit's scratch topics (no workload names its topics so). */
    public static boolean isScratchTopic(String topic) {
        return topic.contains(SCRATCH_INFIX);
    }

    public static Result run(String bootstrap, String prefix, short replicationFactor, long seed, Duration wait) {
        TopicLifecycleAudit a = new TopicLifecycleAudit(bootstrap, prefix, replicationFactor, seed, wait);
        Admin admin = null;
        java.util.concurrent.ExecutorService side = java.util.concurrent.Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "lifecycle-audit-step");
            t.setDaemon(true);
            return t;
        });
        try {
            Admin client = Admin.create(a.adminProps());
            admin = client;
            List<java.util.concurrent.Future<?>> running = List.of(
                    side.submit(() -> a.step("grow", () -> a.grow(client))),
                    side.submit(() -> a.step("delete and recreate", () -> a.renew(client))),
                    side.submit(() -> {
                        a.step("delete records", () -> a.trim(client));
                        a.step("alter configs", () -> a.configs(client));
                    }),
                    side.submit(() -> {
                        a.step("group admin", () -> new GroupAdminAudit(a).run(client));
                        a.step("client quotas", () -> new ClientQuotaAudit(a).run(client));
                    }));
            for (var f : running) f.get(); // each step is bounded by its own waits
            a.step("validate only", () -> a.dryRuns(client));
            a.step("refusals", () -> a.refusals(client));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            a.notes.add("the lifecycle audit was interrupted");
        } catch (RuntimeException | ExecutionException e) {
            a.notes.add("the lifecycle audit stopped: " + e);
        } finally {
            side.shutdownNow();
            if (admin != null) admin.close(ApiAudit.ADMIN_CLOSE); // bounded: pending calls must not hold the run
        }
        return new Result(a.steps.get(), List.copyOf(a.findings), List.copyOf(a.notes), String.join(", ", a.timings));
    }

    private interface Step {
        void run() throws Exception;
    }

    /** A step that throws is a note when the cluster only failed to answer in time, a finding when it refused. */
    private void step(String name, Step step) {
        long started = System.nanoTime();
        try {
            step.run();
            steps.incrementAndGet();
        } catch (Refused e) {
            findings.add(new Finding(e.kind, e.subject, e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            notes.add(name + ": interrupted");
        } catch (Exception e) {
            notes.add(name + " could not finish: " + e);
        } finally {
            timings.add(String.format("%s %.1f s", name, (System.nanoTime() - started) / 1e9));
        }
    }

    /** A healthy idle cluster refused an operation it must accept. */
    static final class Refused extends Exception {
        final String kind, subject;

        Refused(String kind, String subject, String what, Throwable cause) {
            super(what + " was refused: " + cause, cause);
            this.kind = kind;
            this.subject = subject;
        }
    }

    /** Waits for an admin future; an outright refusal (a non-retriable API error) becomes {@link Refused}. */
    <T> T get(java.util.concurrent.Future<T> f, String kind, String subject, String what) throws Exception {
        try {
            return f.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof ApiException && !(c instanceof RetriableException)) throw new Refused(kind, subject, what, c);
            throw e;
        }
    }

    private void grow(Admin admin) throws Exception {
        String topic = prefix + SCRATCH_INFIX + "grow";
        create(admin, topic, 1);
        get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(GROWN_TO))).all(), PARTITION_COUNT, topic,
                "CreatePartitions to " + GROWN_TO);
        long deadline = System.nanoTime() + wait.toNanos();
        TopicDescription d = describe(admin, topic);
        while (!settled(d) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            d = describe(admin, topic);
        }
        List<Finding> shape = partitionShape(topic, d, GROWN_TO, replicationFactor);
        findings.addAll(shape);
        if (!shape.isEmpty()) return;
        List<TopicPartition> parts = new ArrayList<>();
        for (int p = 0; p < GROWN_TO; p++) parts.add(new TopicPartition(topic, p));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            for (TopicPartition tp : parts) producer.send(new ProducerRecord<>(topic, tp.partition(), null, "grow-" + tp.partition())).get();
        }
        Map<TopicPartition, List<Rec>> read = read(parts, parts.stream().collect(java.util.stream.Collectors.toMap(p -> p, p -> 1L)));
        for (TopicPartition tp : parts) {
            Finding f = expectLog(PARTITION_COUNT, tp, read.get(tp), List.of(new Rec(0, "grow-" + tp.partition())));
            if (f != null) findings.add(f);
        }
    }

    /** Whether a described topic shows every partition with a leader and a full replica set, or already too many. */
    private boolean settled(TopicDescription d) {
        if (d == null) return false;
        if (d.partitions().size() > GROWN_TO) return true;
        return d.partitions().size() == GROWN_TO && d.partitions().stream()
                .allMatch(p -> p.leader() != null && p.replicas().size() == replicationFactor);
    }

    static List<Finding> partitionShape(String topic, TopicDescription d, int partitions, int replicationFactor) {
        List<Finding> out = new ArrayList<>();
        if (d == null) {
            out.add(new Finding(PARTITION_COUNT, topic, "created and grown to " + partitions + " partitions, but DescribeTopics does not know it"));
            return out;
        }
        if (d.partitions().size() != partitions) {
            out.add(new Finding(PARTITION_COUNT, topic, "CreatePartitions to " + partitions + " was accepted, but DescribeTopics"
                    + " shows " + d.partitions().size() + " partitions"));
            return out;
        }
        for (var p : d.partitions()) {
            if (p.leader() == null || p.replicas().size() != replicationFactor) {
                out.add(new Finding(PARTITION_COUNT, topic + "-" + p.partition(), "has " + p.replicas().size() + " replicas (the topic's"
                        + " replication factor is " + replicationFactor + ") and leader " + p.leader()));
            }
        }
        return out;
    }

    private void renew(Admin admin) throws Exception {
        String topic = prefix + SCRATCH_INFIX + "renew";
        TopicPartition tp = new TopicPartition(topic, 0);
        create(admin, topic, 1);
        List<Rec> old = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            for (int i = 0; i < OLD_RECORDS; i++) {
                long offset = producer.send(new ProducerRecord<>(topic, 0, null, "old-" + i)).get().offset();
                old.add(new Rec(offset, "old-" + i));
            }
        }
        get(admin.deleteTopics(List.of(topic)).all(), RECREATED_TOPIC, topic, "DeleteTopics");
        long deadline = System.nanoTime() + wait.toNanos();
        while (describe(admin, topic) != null) {
            if (System.nanoTime() > deadline) {
                findings.add(new Finding(RECREATED_TOPIC, topic, "DeleteTopics was accepted, but DescribeTopics still shows the topic "
                        + wait.toSeconds() + " s later"));
                return;
            }
            Thread.sleep(200);
        }
        while (true) {
            try {
                get(admin.createTopics(List.of(newTopic(topic, 1))).all(), RECREATED_TOPIC, topic, "CreateTopics after its deletion");
                break;
            } catch (Refused e) {
                // a broker may still be removing the old topic: that is allowed for a while, not for ever
                if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) throw e;
                Thread.sleep(200);
            }
        }
        List<Rec> fresh = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            for (int i = 0; i < NEW_RECORDS; i++) {
                long offset = producer.send(new ProducerRecord<>(topic, 0, null, "new-" + i)).get().offset();
                fresh.add(new Rec(offset, "new-" + i));
            }
        }
        List<Rec> read = read(List.of(tp), Map.of(tp, (long) NEW_RECORDS)).get(tp);
        Finding f = expectLog(RECREATED_TOPIC, tp, read, expected(0, NEW_RECORDS, "new-", 0));
        if (f == null && !fresh.equals(expected(0, NEW_RECORDS, "new-", 0))) {
            f = new Finding(RECREATED_TOPIC, tp.toString(), "the recreated topic acknowledged its first writes at " + fresh);
        }
        if (f != null) findings.add(new Finding(f.kind(), f.subject(), f.explanation() + " (before its deletion it held " + old.size()
                + " records, up to offset " + old.get(old.size() - 1).offset() + ")"));
    }

    private void trim(Admin admin) throws Exception {
        String topic = prefix + SCRATCH_INFIX + "trim";
        TopicPartition tp = new TopicPartition(topic, 0);
        create(admin, topic, 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            // one batch per record, so the log start lands inside the segment between batches, not at its base
            for (int i = 0; i < TRIM_RECORDS; i++) producer.send(new ProducerRecord<>(topic, 0, null, "trim-" + i)).get();
        }
        var low = get(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(TRIM_BEFORE))).lowWatermarks().get(tp),
                DELETE_RECORDS, tp.toString(), "DeleteRecords before " + TRIM_BEFORE);
        if (low.lowWatermark() != TRIM_BEFORE) {
            findings.add(new Finding(DELETE_RECORDS, tp.toString(), "DeleteRecords before offset " + TRIM_BEFORE
                    + " answered low watermark " + low.lowWatermark()));
        }
        try {
            get(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(TRIM_RECORDS + 1000L))).lowWatermarks().get(tp),
                    DELETE_RECORDS, tp.toString(), "DeleteRecords past the high watermark");
            findings.add(new Finding(DELETE_RECORDS, tp.toString(), "DeleteRecords before offset " + (TRIM_RECORDS + 1000)
                    + ", past the high watermark " + TRIM_RECORDS + ", was accepted (Kafka refuses it: OFFSET_OUT_OF_RANGE)"));
            return;
        } catch (Refused expected) {
            // refused, as it must be
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            for (int i = TRIM_RECORDS; i < TRIM_RECORDS + NEW_RECORDS; i++) producer.send(new ProducerRecord<>(topic, 0, null, "trim-" + i)).get();
        }
        long end = TRIM_RECORDS + NEW_RECORDS;
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProps())) {
            long earliest = c.beginningOffsets(List.of(tp), wait).get(tp);
            if (earliest != TRIM_BEFORE) {
                findings.add(new Finding(DELETE_RECORDS, tp.toString(), "after DeleteRecords before offset " + TRIM_BEFORE
                        + ", ListOffsets(earliest) answered " + earliest));
            }
        }
        Finding f = expectLog(DELETE_RECORDS, tp, read(List.of(tp), Map.of(tp, end)).get(tp), expected(TRIM_BEFORE, (int) end, "trim-", TRIM_BEFORE));
        if (f != null) findings.add(f);
    }

    private void configs(Admin admin) throws Exception {
        String topic = prefix + SCRATCH_INFIX + "trim";
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        String retention = String.valueOf(86_400_000L + Math.floorMod(seed, 1000) * 1000L);
        get(admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", retention),
                AlterConfigOp.OpType.SET)))).all(), CONFIG_CHANGE, topic, "setting retention.ms=" + retention);
        ConfigEntry set = awaitConfig(admin, resource, "retention.ms", e -> e != null && retention.equals(e.value()));
        if (set == null || !retention.equals(set.value())) {
            findings.add(new Finding(CONFIG_CHANGE, topic, "retention.ms=" + retention + " was accepted, but DescribeConfigs answers "
                    + describeEntry(set) + " " + wait.toSeconds() + " s later"));
            return;
        }
        get(admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", ""),
                AlterConfigOp.OpType.DELETE)))).all(), CONFIG_CHANGE, topic, "deleting retention.ms");
        ConfigEntry reset = awaitConfig(admin, resource, "retention.ms", e -> e != null && !retention.equals(e.value()));
        if (reset == null || retention.equals(reset.value()) || reset.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
            findings.add(new Finding(CONFIG_CHANGE, topic, "the deletion of retention.ms was accepted, but DescribeConfigs answers "
                    + describeEntry(reset)));
        }
        for (var bad : List.of(new ConfigEntry("retention.ms", "not-a-number"), new ConfigEntry("cleanup.policy", "faultline-nonsense"))) {
            try {
                get(admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(bad, AlterConfigOp.OpType.SET)))).all(),
                        CONFIG_CHANGE, topic, "setting " + bad.name() + "=" + bad.value());
                findings.add(new Finding(CONFIG_CHANGE, topic, "setting " + bad.name() + "=" + bad.value() + " was accepted; Kafka refuses"
                        + " it (INVALID_CONFIG)"));
            } catch (Refused expected) {
                // refused, as it must be
            }
        }
        groupConfig(admin);
    }

    /**
     * Requests sent with validate_only change nothing: a topic "created" so does not exist, a topic "grown" so keeps
     * its partitions, a config "set" so keeps its value. Judged after a second, so a change that was made would have
     * reached the brokers' metadata.
     */
    private void dryRuns(Admin admin) throws Exception {
        String dry = prefix + SCRATCH_INFIX + "dry", grown = prefix + SCRATCH_INFIX + "grow", trimmed = prefix + SCRATCH_INFIX + "trim";
        TopicDescription before = describe(admin, grown);
        int partitionsBefore = before == null ? -1 : before.partitions().size();
        get(admin.createTopics(List.of(newTopic(dry, 1)), new org.apache.kafka.clients.admin.CreateTopicsOptions().validateOnly(true)).all(),
                VALIDATE_ONLY, dry, "CreateTopics with validate_only");
        get(admin.createPartitions(Map.of(grown, NewPartitions.increaseTo(Math.max(GROWN_TO, partitionsBefore) + 2)),
                new org.apache.kafka.clients.admin.CreatePartitionsOptions().validateOnly(true)).all(),
                VALIDATE_ONLY, grown, "CreatePartitions with validate_only");
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, trimmed);
        String retention = String.valueOf(172_800_000L + Math.floorMod(seed, 1000) * 1000L);
        get(admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", retention),
                AlterConfigOp.OpType.SET))), new org.apache.kafka.clients.admin.AlterConfigsOptions().validateOnly(true)).all(),
                VALIDATE_ONLY, trimmed, "IncrementalAlterConfigs with validate_only");
        Thread.sleep(1000);
        if (describe(admin, dry) != null) {
            findings.add(new Finding(VALIDATE_ONLY, dry, "CreateTopics with validate_only created the topic"));
        }
        TopicDescription d = describe(admin, grown);
        if (d != null && d.partitions().size() != partitionsBefore) {
            findings.add(new Finding(VALIDATE_ONLY, grown, "after CreatePartitions to " + (Math.max(GROWN_TO, partitionsBefore) + 2)
                    + " with validate_only, it has " + d.partitions().size() + " partitions, not " + partitionsBefore));
        }
        ConfigEntry e = get(admin.describeConfigs(List.of(resource)).all(), VALIDATE_ONLY, trimmed, "DescribeConfigs")
                .get(resource).get("retention.ms");
        if (e != null && retention.equals(e.value())) {
            findings.add(new Finding(VALIDATE_ONLY, trimmed, "IncrementalAlterConfigs with validate_only set retention.ms=" + retention));
        }
    }

    /**
     * Invalid requests are refused with the error Kafka answers them with. Run last, on the grown and trimmed topics (a
     * wrongly accepted one then changes nothing another step judges). Each request is judged on its own.
     */
    private void refusals(Admin admin) throws Exception {
        String grown = prefix + SCRATCH_INFIX + "grow", trimmed = prefix + SCRATCH_INFIX + "trim";
        String missing = prefix + SCRATCH_INFIX + "never-created";
        int brokers = admin.describeCluster().nodes().get(wait.toMillis(), TimeUnit.MILLISECONDS).size();
        expectRefusal(grown, "CreateTopics of an existing topic", TopicExistsException.class,
                admin.createTopics(List.of(newTopic(grown, 1))).all());
        expectRefusal(grown, "CreatePartitions from " + GROWN_TO + " down to 1",
                org.apache.kafka.common.errors.InvalidPartitionsException.class,
                admin.createPartitions(Map.of(grown, NewPartitions.increaseTo(1))).all());
        expectRefusal(prefix + SCRATCH_INFIX + "too-many-replicas", "CreateTopics with " + (brokers + 1) + " replicas on "
                        + brokers + " brokers", org.apache.kafka.common.errors.InvalidReplicationFactorException.class,
                admin.createTopics(List.of(new NewTopic(prefix + SCRATCH_INFIX + "too-many-replicas", 1,
                        (short) (brokers + 1)))).all());
        expectRefusal(missing, "DeleteTopics of a topic that does not exist", UnknownTopicOrPartitionException.class,
                admin.deleteTopics(List.of(missing)).all());
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, trimmed);
        expectRefusal(trimmed, "setting the unknown topic config faultline.no.such.config",
                org.apache.kafka.common.errors.InvalidConfigurationException.class,
                admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                        new ConfigEntry("faultline.no.such.config", "1"), AlterConfigOp.OpType.SET)))).all());
    }

    void expectRefusal(String subject, String what, Class<? extends ApiException> error,
                               java.util.concurrent.Future<?> answer) throws InterruptedException {
        RefusalJudgement j = judgeRefusal(subject, what, error, answer, wait);
        if (j.finding() != null) findings.add(j.finding());
        if (j.note() != null) notes.add(j.note());
    }

    /** What a refusal step concluded: a finding, a note (no answer to judge), or neither (refused as Kafka does). */
    record RefusalJudgement(Finding finding, String note) {}

    /** A finding when the request was accepted or refused with another error; a note when it only timed out. */
    static RefusalJudgement judgeRefusal(String subject, String what, Class<? extends ApiException> error,
                                         java.util.concurrent.Future<?> answer, Duration wait) throws InterruptedException {
        String wanted = error.getSimpleName().replace("Exception", "");
        try {
            answer.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return new RefusalJudgement(new Finding(REFUSAL, subject, what + " was accepted; Kafka refuses it (" + wanted + ")"), null);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (error.isInstance(c)) return new RefusalJudgement(null, null);
            if (c instanceof RetriableException) return new RefusalJudgement(null, what + ": " + c);
            return new RefusalJudgement(new Finding(REFUSAL, subject, what + " was refused with " + c
                    + "; Kafka refuses it with " + wanted), null);
        } catch (java.util.concurrent.TimeoutException e) {
            return new RefusalJudgement(null, what + ": no answer within " + wait.toSeconds() + " s");
        }
    }

    /**
     * A group config set is described back. A broker that does not describe group configs (older than Kafka 4.0) is
     * only noted; one that describes them must also accept a valid value.
     */
    private void groupConfig(Admin admin) throws Exception {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, prefix + SCRATCH_INFIX + "group");
        String interval = String.valueOf(6000 + Math.floorMod(seed, 50) * 100);
        try {
            ConfigEntry before = get(admin.describeConfigs(List.of(group)).all(), CONFIG_CHANGE, group.name(), "DescribeConfigs of a group")
                    .get(group).get("consumer.heartbeat.interval.ms");
            if (before == null) throw new Refused(CONFIG_CHANGE, group.name(), "describing a group's configs", new IllegalStateException("no consumer.heartbeat.interval.ms"));
        } catch (Refused e) {
            notes.add("group configs not audited: " + e.getMessage());
            return;
        }
        get(admin.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
                new ConfigEntry("consumer.heartbeat.interval.ms", interval), AlterConfigOp.OpType.SET)))).all(),
                CONFIG_CHANGE, "group " + group.name(), "setting consumer.heartbeat.interval.ms=" + interval + ", which it describes,");
        ConfigEntry got = awaitConfig(admin, group, "consumer.heartbeat.interval.ms", e -> e != null && interval.equals(e.value()));
        if (got == null || !interval.equals(got.value())) {
            findings.add(new Finding(CONFIG_CHANGE, "group " + group.name(), "consumer.heartbeat.interval.ms=" + interval
                    + " was accepted, but DescribeConfigs answers " + describeEntry(got)));
        }
    }

    private ConfigEntry awaitConfig(Admin admin, ConfigResource resource, String name,
                                    java.util.function.Predicate<ConfigEntry> done) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            ConfigEntry e = get(admin.describeConfigs(List.of(resource)).all(), CONFIG_CHANGE, resource.name(), "DescribeConfigs")
                    .get(resource).get(name);
            if (done.test(e) || System.nanoTime() > deadline) return e;
            Thread.sleep(200);
        }
    }

    private static String describeEntry(ConfigEntry e) {
        return e == null ? "no such config" : e.name() + "=" + e.value() + " (" + e.source() + ")";
    }

    /** A record as read back or acknowledged. */
    record Rec(long offset, String value) {}

    static List<Rec> expected(long fromOffset, int toOffset, String valuePrefix, int firstIndex) {
        List<Rec> out = new ArrayList<>();
        for (long o = fromOffset, i = firstIndex; o < toOffset; o++, i++) out.add(new Rec(o, valuePrefix + i));
        return out;
    }

    /** The finding if a partition read from its beginning is not exactly {@code want}; null when it is. */
    static Finding expectLog(String kind, TopicPartition tp, List<Rec> got, List<Rec> want) {
        if (want.equals(got)) return null;
        return new Finding(kind, tp.toString(), "read from its beginning, it holds " + summary(got) + "; it should hold exactly "
                + summary(want));
    }

    static String summary(List<Rec> recs) {
        if (recs == null || recs.isEmpty()) return "no record";
        if (recs.size() <= 4) return recs.toString();
        return recs.size() + " records " + recs.subList(0, 2) + " … " + recs.subList(recs.size() - 2, recs.size());
    }

    void create(Admin admin, String topic, int partitions) throws Exception {
        try {
            get(admin.createTopics(List.of(newTopic(topic, partitions))).all(), PARTITION_COUNT, topic, "CreateTopics");
        } catch (Refused e) {
            if (!(e.getCause() instanceof TopicExistsException)) throw e;
            throw new IllegalStateException("topic " + topic + " exists already: the audit ran before in this cluster");
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (describe(admin, topic) == null) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("topic " + topic + " not described " + wait.toSeconds() + " s after its creation");
            Thread.sleep(200);
        }
    }

    private NewTopic newTopic(String topic, int partitions) {
        return new NewTopic(topic, partitions, replicationFactor);
    }

    /** The topic's description, or null while it is unknown. */
    private TopicDescription describe(Admin admin, String topic) throws Exception {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(wait.toMillis(), TimeUnit.MILLISECONDS).get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) return null;
            throw e;
        }
    }

    /** Reads the partitions from their beginnings until each reaches its end offset or the wait runs out. */
    private Map<TopicPartition, List<Rec>> read(Collection<TopicPartition> parts, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, List<Rec>> out = new java.util.HashMap<>();
        parts.forEach(p -> out.put(p, new ArrayList<>()));
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProps())) {
            c.assign(parts);
            c.seekToBeginning(parts);
            long deadline = System.nanoTime() + wait.toNanos();
            java.util.Set<TopicPartition> pending = new java.util.HashSet<>(parts);
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.get(new TopicPartition(r.topic(), r.partition())).add(new Rec(r.offset(), r.value()));
                }
                pending.removeIf(p -> c.position(p, wait) >= ends.get(p));
            }
        }
        return out;
    }

    Properties producerProps() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "faultline-lifecycle-audit");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(20_000, wait.toMillis()));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, wait.toMillis());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    Properties consumerProps() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "faultline-lifecycle-audit");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) wait.toMillis());
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return p;
    }

    private Properties adminProps() {
        Properties p = new Properties();
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.CLIENT_ID_CONFIG, "faultline-lifecycle-audit");
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) wait.toMillis());
        return p;
    }
}
