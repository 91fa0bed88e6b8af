package io.faultline.harness.audit;

import io.faultline.harness.audit.ApiAudit.Finding;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What an operator does to a consumer group with Kafka's admin tools ({@code kafka-consumer-groups --reset-offsets},
 * {@code --delete-offsets}, {@code --delete}), on a scratch topic and group of the run, checked against Kafka's
 * promises ({@value #GROUP_ADMIN}):
 * <ol>
 *   <li>offsets set with AlterConsumerGroupOffsets on an empty group are listed back exactly (offset and metadata),
 *       a consumer of the group starts each partition at its committed offset, and its own commit replaces one;</li>
 *   <li>OffsetDelete removes the named partition's offset and keeps the others;</li>
 *   <li>while a member is subscribed, the group is described Stable with that member owning every partition, and
 *       Kafka refuses to delete the group (GROUP_NOT_EMPTY), to reset its offsets (UNKNOWN_MEMBER_ID) and to delete
 *       an offset of a topic it reads (GROUP_SUBSCRIBED_TO_TOPIC); after the member leaves it is Empty;</li>
 *   <li>DeleteGroups removes the group with its offsets, and deleting a group that does not exist is refused
 *       (GROUP_ID_NOT_FOUND).</li>
 * </ol>
 * The workload commits offsets only as group members, never through the admin API, and never deletes a group: the
 * group coordinator's paths for these requests were reached by no run. A broker too old for an API (OffsetDelete came
 * in Kafka 2.4) gets a note, not a finding.
 */
final class GroupAdminAudit {
    static final String GROUP_ADMIN = "audit/group-admin";
    static final int PARTITIONS = 3, RECORDS_PER_PARTITION = 10;

    private final TopicLifecycleAudit audit;
    private final String topic, group;

    GroupAdminAudit(TopicLifecycleAudit audit) {
        this.audit = audit;
        this.topic = audit.prefix + TopicLifecycleAudit.SCRATCH_INFIX + "offsets";
        this.group = audit.prefix + TopicLifecycleAudit.SCRATCH_INFIX + "offsets-group";
    }

    void run(Admin admin) throws Exception {
        try {
            audit.create(admin, topic, PARTITIONS);
            fill();
            if (!resetAndRead(admin)) return;
            if (!deleteOneOffset(admin)) return;
            if (!whileActive(admin)) return;
            deleteGroup(admin);
        } catch (TopicLifecycleAudit.Refused e) {
            if (!(e.getCause() instanceof UnsupportedVersionException)) throw e;
            audit.notes.add("group admin not audited further: " + e.getMessage());
        }
    }

    private TopicPartition tp(int p) {
        return new TopicPartition(topic, p);
    }

    private void fill() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(audit.producerProps())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 0; i < RECORDS_PER_PARTITION; i++) sent.add(producer.send(new ProducerRecord<>(topic, p, null, "g-" + p + "-" + i)));
            }
            for (var f : sent) f.get(audit.wait.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Offsets set by the admin API read back; a consumer starts at them; its own commit replaces one. */
    private boolean resetAndRead(Admin admin) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> reset = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        for (int p = 0; p < PARTITIONS; p++) reset.put(tp(p), new OffsetAndMetadata(3 + 2L * p, "reset-" + p));
        audit.get(admin.alterConsumerGroupOffsets(group, reset).all(), GROUP_ADMIN, group, "AlterConsumerGroupOffsets on an empty group");
        if (!expectOffsets(admin, reset, "after AlterConsumerGroupOffsets")) return false;

        Properties p = audit.consumerProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"); // a missing committed offset must show, not be papered over
        Map<TopicPartition, Long> first = new HashMap<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.assign(reset.keySet());
            long deadline = System.nanoTime() + audit.wait.toNanos();
            try {
                while (first.size() < PARTITIONS && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                        first.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
                    }
                }
            } catch (org.apache.kafka.clients.consumer.NoOffsetForPartitionException e) {
                audit.findings.add(new Finding(GROUP_ADMIN, group, "offsets were set for " + e.partitions()
                        + ", but a consumer of the group finds no committed offset there"));
                return false;
            }
            List<Finding> wrong = firstReads(group, reset, first);
            audit.findings.addAll(wrong);
            if (!wrong.isEmpty()) return false;
            if (first.size() < PARTITIONS) {
                audit.notes.add("group admin: the consumer read " + first.size() + " of " + PARTITIONS + " partitions in "
                        + audit.wait.toSeconds() + " s; the rest not judged");
                return false;
            }
            // a consumer without group membership commits as the admin API does (generation -1): accepted while empty
            OffsetAndMetadata moved = new OffsetAndMetadata(RECORDS_PER_PARTITION - 1, "consumer-commit");
            try {
                c.commitSync(Map.of(tp(0), moved), audit.wait);
            } catch (org.apache.kafka.common.errors.RetriableException e) {
                audit.notes.add("group admin: the consumer's commit was not answered: " + e);
                return false;
            } catch (org.apache.kafka.common.KafkaException e) {
                audit.findings.add(new Finding(GROUP_ADMIN, group, "a consumer's commit to the empty group was refused: " + e));
                return false;
            }
            reset.put(tp(0), moved);
        }
        return expectOffsets(admin, reset, "after a consumer's commit");
    }

    /** OffsetDelete of one partition removes only that partition's offset. */
    private boolean deleteOneOffset(Admin admin) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> left = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        left.putAll(listed(admin));
        audit.get(admin.deleteConsumerGroupOffsets(group, Set.of(tp(1))).all(), GROUP_ADMIN, group, "OffsetDelete of " + tp(1));
        left.remove(tp(1));
        return expectOffsets(admin, left, "after OffsetDelete of " + tp(1));
    }

    /** An active member: described as owning every partition, and the group refuses what would pull the rug. */
    private static final int SESSION_MS = 10_000;

    private boolean whileActive(Admin admin) throws Exception {
        Properties p = audit.consumerProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        // A LeaveGroup sent while the coordinator moves is lost (Kafka's too): the member then ends with its session,
        // well inside the wait for Empty below (seen 7 December 2026, night, with the default 45 s session).
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_MS);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, SESSION_MS / 5);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + audit.wait.toNanos();
            while (c.assignment().size() < PARTITIONS && System.nanoTime() < deadline) c.poll(Duration.ofMillis(200));
            if (c.assignment().size() < PARTITIONS) {
                audit.notes.add("group admin: a subscribed consumer was assigned " + c.assignment().size() + " of " + PARTITIONS
                        + " partitions in " + audit.wait.toSeconds() + " s; the active group not judged");
                return false;
            }
            ConsumerGroupDescription d = describe(admin);
            Finding f = activeDescription(group, d, PARTITIONS);
            if (f != null) audit.findings.add(f);
            audit.expectRefusal(group, "DeleteGroups of a group with an active member", GroupNotEmptyException.class,
                    admin.deleteConsumerGroups(List.of(group)).all());
            audit.expectRefusal(group, "AlterConsumerGroupOffsets while a member is active", UnknownMemberIdException.class,
                    admin.alterConsumerGroupOffsets(group, Map.of(tp(2), new OffsetAndMetadata(0))).all());
            audit.expectRefusal(group, "OffsetDelete of a partition of a topic the group is subscribed to",
                    GroupSubscribedToTopicException.class, admin.deleteConsumerGroupOffsets(group, Set.of(tp(0))).all());
        } // closing sends LeaveGroup
        GroupState state = null;
        long deadline = System.nanoTime() + audit.wait.toNanos();
        while (System.nanoTime() < deadline && (state = describe(admin).groupState()) != GroupState.EMPTY) Thread.sleep(200);
        if (state != GroupState.EMPTY) {
            audit.findings.add(new Finding(GROUP_ADMIN, group, "its only member left (its session " + SESSION_MS / 1000
                    + " s), but it is described " + state + ", not Empty, " + audit.wait.toSeconds() + " s later"));
            return false;
        }
        return true;
    }

    /** DeleteGroups removes the group and its offsets; a group that does not exist cannot be deleted. */
    private void deleteGroup(Admin admin) throws Exception {
        audit.get(admin.deleteConsumerGroups(List.of(group)).all(), GROUP_ADMIN, group, "DeleteGroups of an empty group");
        Map<TopicPartition, OffsetAndMetadata> after;
        try {
            after = listed(admin);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
            after = Map.of();
        }
        Finding f = offsetsDiffer(group, Map.of(), after, "after DeleteGroups");
        if (f != null) audit.findings.add(f);
        String missing = audit.prefix + TopicLifecycleAudit.SCRATCH_INFIX + "never-a-group";
        audit.expectRefusal(missing, "DeleteGroups of a group that does not exist", GroupIdNotFoundException.class,
                admin.deleteConsumerGroups(List.of(missing)).all());
    }

    private ConsumerGroupDescription describe(Admin admin) throws Exception {
        return audit.get(admin.describeConsumerGroups(List.of(group)).all(), GROUP_ADMIN, group, "DescribeGroups").get(group);
    }

    /** The group's committed offsets; partitions the broker answers with no offset are left out, as Kafka's tools do. */
    private Map<TopicPartition, OffsetAndMetadata> listed(Admin admin) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(audit.wait.toMillis(), TimeUnit.MILLISECONDS)
                .forEach((p, o) -> { if (o != null) out.put(p, o); });
        return out;
    }

    private boolean expectOffsets(Admin admin, Map<TopicPartition, OffsetAndMetadata> expected, String when) throws Exception {
        Finding f = offsetsDiffer(group, expected, listed(admin), when);
        if (f != null) audit.findings.add(f);
        return f == null;
    }

    /** A finding when the listed offsets are not exactly the expected ones (offset and metadata per partition). */
    static Finding offsetsDiffer(String group, Map<TopicPartition, OffsetAndMetadata> expected,
                                 Map<TopicPartition, OffsetAndMetadata> listed, String when) {
        List<String> wrong = new ArrayList<>();
        for (var e : new TreeMap<>(asStrings(expected)).entrySet()) {
            String got = asStrings(listed).get(e.getKey());
            if (!e.getValue().equals(got)) wrong.add(e.getKey() + " " + (got == null ? "none" : got) + " instead of " + e.getValue());
        }
        for (var e : new TreeMap<>(asStrings(listed)).entrySet()) {
            if (!asStrings(expected).containsKey(e.getKey())) wrong.add(e.getKey() + " " + e.getValue() + ", which should be gone");
        }
        if (wrong.isEmpty()) return null;
        return new Finding(GROUP_ADMIN, group, "ListConsumerGroupOffsets " + when + ": " + String.join("; ", wrong));
    }

    private static Map<String, String> asStrings(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<String, String> out = new HashMap<>();
        offsets.forEach((p, o) -> out.put(p.toString(), o.offset() + " \"" + o.metadata() + "\""));
        return out;
    }

    /** A finding when a consumer of the group began a partition anywhere but at its committed offset. */
    static List<Finding> firstReads(String group, Map<TopicPartition, OffsetAndMetadata> committed, Map<TopicPartition, Long> first) {
        List<Finding> out = new ArrayList<>();
        first.forEach((p, offset) -> {
            OffsetAndMetadata c = committed.get(p);
            if (c != null && c.offset() != offset) {
                out.add(new Finding(GROUP_ADMIN, group, "a consumer of the group read " + p + " from offset " + offset
                        + ", not from its committed offset " + c.offset()));
            }
        });
        return out;
    }

    /** A finding unless the group is Stable with one member that owns every partition of the topic. */
    static Finding activeDescription(String group, ConsumerGroupDescription d, int partitions) {
        if (d == null) return new Finding(GROUP_ADMIN, group, "a member is active, but DescribeGroups does not describe the group");
        int owned = d.members().stream().mapToInt(m -> m.assignment().topicPartitions().size()).sum();
        if (d.groupState() == GroupState.STABLE && d.members().size() == 1 && owned == partitions) return null;
        return new Finding(GROUP_ADMIN, group, "one member is active and owns all " + partitions + " partitions, but DescribeGroups"
                + " answers state " + d.groupState() + ", " + d.members().size() + " members owning " + owned + " partitions");
    }
}
