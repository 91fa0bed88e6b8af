package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord.PartitionReplicasRecord;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.Errors;

/**
 * Partition reassignment as Kafka's controller does it (KIP-455). Starting a move writes the union of the old and
 * the target replicas with the adding and removing ones; the new replicas follow the leader, catch up and are added
 * to the ISR through AlterPartition; once every adding replica is in the ISR, {@link #maybeComplete} writes the
 * target set alone (the removed replicas leave the replica set and the ISR, and a removed leader hands over to
 * a target replica in the ISR). Cancelling reverts to the original replicas. All of it is metadata, so a new
 * active controller goes on with a move the old one started: the next ISR change completes it.
 *
 * <p>Each replica-set change bumps the leader epoch (Kafka bumps it only when replicas leave): the leader then
 * starts a new leadership with the new follower set, the one change this broker's leaders act on.
 */
public final class Reassignments {
    private Reassignments() { }

    /** ListPartitionReassignments from an image: the partitions being moved (all, or among those named). */
    public static ListPartitionReassignmentsResponseData list(MetadataImage image, ListPartitionReassignmentsRequestData req) {
        ListPartitionReassignmentsResponseData resp = new ListPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code());
        if (req.topics() == null) {
            for (TopicImage t : image.topicsByName().values()) {
                addOngoing(resp, t, new ArrayList<>(t.partitions().keySet()));
            }
            return resp;
        }
        for (ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics rt : req.topics()) {
            Optional<TopicImage> t = image.topic(rt.name());
            if (t.isEmpty()) {
                return new ListPartitionReassignmentsResponseData().setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("The topic '" + rt.name() + "' does not exist.");
            }
            addOngoing(resp, t.get(), rt.partitionIndexes());
        }
        return resp;
    }

    private static void addOngoing(ListPartitionReassignmentsResponseData resp, TopicImage t, List<Integer> partitions) {
        OngoingTopicReassignment out = new OngoingTopicReassignment().setName(t.name());
        for (int p : partitions.stream().sorted().distinct().toList()) {
            PartitionRegistration reg = t.partition(p);
            if (reg == null || !reg.isReassigning()) continue;
            out.partitions().add(new OngoingPartitionReassignment().setPartitionIndex(p)
                    .setReplicas(new ArrayList<>(reg.replicas())).setAddingReplicas(new ArrayList<>(reg.addingReplicas()))
                    .setRemovingReplicas(new ArrayList<>(reg.removingReplicas())));
        }
        if (!out.partitions().isEmpty()) resp.topics().add(out);
    }

    static ControllerResult<AlterPartitionReassignmentsResponseData> alter(MetadataImage image,
                                                                          AlterPartitionReassignmentsRequestData req,
                                                                          ControllerSettings settings) {
        Decision d = new Decision(image);
        AlterPartitionReassignmentsResponseData resp = new AlterPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code()).setAllowReplicationFactorChange(req.allowReplicationFactorChange());
        for (ReassignableTopic rt : req.topics()) {
            ReassignableTopicResponse out = new ReassignableTopicResponse().setName(rt.name());
            resp.responses().add(out);
            for (ReassignablePartition rp : rt.partitions()) {
                Refusal no = alterOne(d, rt.name(), rp, req.allowReplicationFactorChange(), settings);
                out.partitions().add(new ReassignablePartitionResponse().setPartitionIndex(rp.partitionIndex())
                        .setErrorCode(no == null ? Errors.NONE.code() : no.error().code())
                        .setErrorMessage(no == null ? null : no.message()));
            }
        }
        return d.result(resp);
    }

    /** Why one partition's reassignment is refused. */
    private record Refusal(Errors error, String message) { }

    private static Refusal alterOne(Decision d, String topicName, ReassignablePartition rp, boolean allowRfChange,
                                    ControllerSettings settings) {
        MetadataImage img = d.image();
        Optional<TopicImage> topic = img.topic(topicName);
        PartitionRegistration cur = topic.map(t -> t.partition(rp.partitionIndex())).orElse(null);
        if (cur == null) {
            return new Refusal(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition " + topicName + "-"
                    + rp.partitionIndex() + ".");
        }
        if (rp.replicas() == null) {
            if (!cur.isReassigning()) {
                return new Refusal(Errors.NO_REASSIGNMENT_IN_PROGRESS, "No reassignment of " + topicName + "-"
                        + rp.partitionIndex() + " is in progress.");
            }
            revert(d, topic.get(), rp.partitionIndex(), cur);
            return null;
        }
        Placement.Checked<List<Integer>> checked = Placement.checkReplicas(img, rp.replicas(), rp.partitionIndex());
        if (checked.isRefused()) return new Refusal(Errors.INVALID_REPLICA_ASSIGNMENT, checked.error());
        List<Integer> target = checked.value();
        if (!allowRfChange && target.size() != cur.targetReplicas().size()) {
            return new Refusal(Errors.INVALID_REPLICATION_FACTOR, "The replication factor of " + topicName + "-"
                    + rp.partitionIndex() + " is " + cur.targetReplicas().size() + ", the target has " + target.size()
                    + " replicas, and changing it was not allowed.");
        }
        start(d, topic.get(), rp.partitionIndex(), cur, target);
        maybeComplete(d, topic.get(), rp.partitionIndex());
        return null;
    }

    /** Moves toward {@code target} from the partition's original replicas (a move in progress is replaced). */
    private static void start(Decision d, TopicImage topic, int p, PartitionRegistration cur, List<Integer> target) {
        List<Integer> original = cur.originalReplicas();
        if (!cur.isReassigning() && target.equals(cur.replicas())) return; // nothing to do
        List<Integer> adding = target.stream().filter(r -> !original.contains(r)).toList();
        List<Integer> removing = original.stream().filter(r -> !target.contains(r)).toList();
        Set<Integer> all = new LinkedHashSet<>(target);
        all.addAll(removing);
        List<Integer> replicas = List.copyOf(all);
        // Replicas of a replaced move that are in neither set leave the ISR with the replica set.
        List<Integer> isr = cur.isr().stream().filter(replicas::contains).toList();
        if (isr.isEmpty()) isr = fallbackIsr(d.image(), original);
        int leader = leaderAmong(d.image(), cur, isr, target);
        d.add(new PartitionReplicasRecord(topic.id(), p, replicas, isr, leader, adding, removing,
                cur.leaderEpoch() + 1, cur.partitionEpoch() + 1));
    }

    /** Cancels the move: back to the original replicas; the ISR keeps only those. */
    private static void revert(Decision d, TopicImage topic, int p, PartitionRegistration cur) {
        List<Integer> original = cur.originalReplicas();
        List<Integer> isr = cur.isr().stream().filter(original::contains).toList();
        // Only new replicas were in sync: the original ones become the ISR (as Kafka's revert does); the data only
        // the new replicas held is lost, as the operator asked.
        if (isr.isEmpty()) isr = fallbackIsr(d.image(), original);
        int leader = leaderAmong(d.image(), cur, isr, original);
        d.add(new PartitionReplicasRecord(topic.id(), p, original, isr, leader, List.of(), List.of(),
                cur.leaderEpoch() + 1, cur.partitionEpoch() + 1));
    }

    /**
     * Completes the move of partition {@code p} if every adding replica is in the ISR and an in-sync replica
     * remains without the removed ones: the replica set becomes the target, the ISR loses the removed replicas,
     * and a leader that leaves hands over to the first active target replica in the ISR. No-op otherwise.
     */
    static void maybeComplete(Decision d, TopicImage topic, int p) {
        MetadataImage img = d.image();
        PartitionRegistration cur = img.topic(topic.id()).map(t -> t.partition(p)).orElse(null);
        if (cur == null || !cur.isReassigning() || !cur.isr().containsAll(cur.addingReplicas())) return;
        List<Integer> isr = cur.isr().stream().filter(r -> !cur.removingReplicas().contains(r)).toList();
        if (isr.isEmpty()) return;
        List<Integer> target = cur.targetReplicas();
        int leader = leaderAmong(img, cur, isr, target);
        d.add(new PartitionReplicasRecord(topic.id(), p, target, isr, leader, List.of(), List.of(),
                cur.leaderEpoch() + 1, cur.partitionEpoch() + 1));
    }

    /** The current leader if it stays in {@code isr} and may lead, else the first such replica in {@code order}. */
    private static int leaderAmong(MetadataImage img, PartitionRegistration cur, List<Integer> isr, List<Integer> order) {
        if (cur.hasLeader() && isr.contains(cur.leader()) && PartitionChanges.isActive(img, cur.leader())) {
            return cur.leader();
        }
        for (int r : order) {
            if (isr.contains(r) && PartitionChanges.isActive(img, r)) return r;
        }
        for (int r : isr) {
            if (PartitionChanges.isActive(img, r)) return r;
        }
        return PartitionRegistration.NO_LEADER;
    }

    private static List<Integer> fallbackIsr(MetadataImage img, List<Integer> replicas) {
        List<Integer> active = replicas.stream().filter(r -> PartitionChanges.isActive(img, r)).toList();
        return active.isEmpty() ? replicas : active;
    }
}
