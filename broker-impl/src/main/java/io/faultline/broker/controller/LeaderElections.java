package io.faultline.broker.controller;

import io.faultline.broker.common.Time;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord.PartitionChangeRecord;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.Errors;

/**
 * Leader elections asked for by an operator (ElectLeaders) and the periodic preferred-leader rebalance
 * (auto.leader.rebalance.enable), as Kafka's controller does them.
 *
 * <p>PREFERRED moves leadership to the first replica of the assignment if it is in the ISR and may lead
 * (ELECTION_NOT_NEEDED if it already leads, PREFERRED_LEADER_NOT_AVAILABLE otherwise). UNCLEAN elects only a
 * leaderless partition: a live ISR member if there is one, else the first live replica with an ISR of itself
 * (ELECTION_NOT_NEEDED while the partition has a leader). The rebalance runs every
 * leader.imbalance.check.interval on the injected clock and elects the preferred leader of every partition whose
 * preferred broker leads too few of its partitions (more than leader.imbalance.per.broker.percentage elsewhere).
 */
final class LeaderElections {
    private final Time time;
    private final ControllerSettings settings;
    /** Injected-clock time (ns) of the next rebalance check; set when this controller activates. */
    private long nextRebalanceNs;

    LeaderElections(Time time, ControllerSettings settings) {
        this.time = time;
        this.settings = settings;
        this.nextRebalanceNs = time.nanoseconds() + intervalNs();
    }

    private long intervalNs() {
        return settings.leaderImbalanceCheckIntervalMs() * 1_000_000L;
    }

    /** A newly active controller waits a whole interval before its first rebalance, as Kafka's does. */
    void activate() {
        nextRebalanceNs = time.nanoseconds() + intervalNs();
    }

    ControllerResult<ElectLeadersResponseData> elect(MetadataImage image, ElectLeadersRequestData req) {
        ElectLeadersResponseData resp = new ElectLeadersResponseData().setErrorCode(Errors.NONE.code());
        ElectionType type;
        try {
            type = ElectionType.valueOf(req.electionType());
        } catch (IllegalArgumentException e) {
            return ControllerResult.of(resp.setErrorCode(Errors.INVALID_REQUEST.code()));
        }
        Decision d = new Decision(image);
        Map<String, ReplicaElectionResult> byTopic = new TreeMap<>();
        if (req.topicPartitions() == null) {
            // Every partition; as Kafka, the answer lists only those elected or failed for another reason.
            for (TopicImage t : image.topicsByName().values()) {
                for (int p : new TreeMap<>(t.partitions()).keySet()) {
                    Errors e = electOne(d, t.name(), p, type);
                    if (e != Errors.ELECTION_NOT_NEEDED) add(byTopic, t.name(), p, e);
                }
            }
        } else {
            for (ElectLeadersRequestData.TopicPartitions tp : req.topicPartitions()) {
                for (int p : tp.partitions()) add(byTopic, tp.topic(), p, electOne(d, tp.topic(), p, type));
            }
        }
        resp.replicaElectionResults().addAll(byTopic.values());
        return d.result(resp);
    }

    private static void add(Map<String, ReplicaElectionResult> byTopic, String topic, int p, Errors e) {
        byTopic.computeIfAbsent(topic, t -> new ReplicaElectionResult().setTopic(t)).partitionResult()
                .add(new PartitionResult().setPartitionId(p).setErrorCode(e.code())
                        .setErrorMessage(e == Errors.NONE ? null : e.message()));
    }

    private Errors electOne(Decision d, String topicName, int p, ElectionType type) {
        MetadataImage img = d.image();
        Optional<TopicImage> topic = img.topic(topicName);
        PartitionRegistration cur = topic.map(t -> t.partition(p)).orElse(null);
        if (cur == null) return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        return type == ElectionType.PREFERRED ? electPreferred(d, topic.get(), p, cur) : electUnclean(d, topic.get(), p, cur);
    }

    private static Errors electPreferred(Decision d, TopicImage topic, int p, PartitionRegistration cur) {
        int preferred = cur.replicas().get(0);
        if (cur.leader() == preferred) return Errors.ELECTION_NOT_NEEDED;
        if (!cur.isr().contains(preferred) || !PartitionChanges.isActive(d.image(), preferred)) {
            return Errors.PREFERRED_LEADER_NOT_AVAILABLE;
        }
        d.add(new PartitionChangeRecord(topic.id(), p, Optional.empty(), OptionalInt.of(preferred),
                cur.leaderEpoch() + 1, cur.partitionEpoch() + 1));
        return Errors.NONE;
    }

    private static Errors electUnclean(Decision d, TopicImage topic, int p, PartitionRegistration cur) {
        if (cur.hasLeader()) return Errors.ELECTION_NOT_NEEDED;
        MetadataImage img = d.image();
        for (int r : cur.replicas()) {
            if (cur.isr().contains(r) && PartitionChanges.isActive(img, r)) {
                d.add(new PartitionChangeRecord(topic.id(), p, Optional.empty(), OptionalInt.of(r),
                        cur.leaderEpoch() + 1, cur.partitionEpoch() + 1));
                return Errors.NONE;
            }
        }
        for (int r : cur.replicas()) {
            if (PartitionChanges.isActive(img, r)) {
                d.add(new PartitionChangeRecord(topic.id(), p, Optional.of(List.of(r)), OptionalInt.of(r),
                        cur.leaderEpoch() + 1, cur.partitionEpoch() + 1));
                return Errors.NONE;
            }
        }
        return Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE;
    }

    /**
     * Periodic work: when the check is due (and auto.leader.rebalance.enable is on), elects the preferred leader
     * where a broker's share of partitions led by others exceeds the allowed imbalance. The response lists the
     * partitions moved. Partitions being reassigned are left alone.
     */
    ControllerResult<List<TopicPartition>> rebalance(MetadataImage image) {
        if (!settings.autoLeaderRebalance() || time.nanoseconds() < nextRebalanceNs) return ControllerResult.of(List.of());
        nextRebalanceNs = time.nanoseconds() + intervalNs();
        Map<Integer, Integer> preferredOf = new HashMap<>();
        Map<Integer, List<TopicPartition>> notLeading = new HashMap<>();
        Map<TopicPartition, TopicImage> topics = new HashMap<>();
        for (TopicImage t : PartitionChanges.sortedTopics(image)) {
            for (Map.Entry<Integer, PartitionRegistration> e : new TreeMap<>(t.partitions()).entrySet()) {
                PartitionRegistration pr = e.getValue();
                if (pr.isReassigning()) continue;
                int preferred = pr.replicas().get(0);
                preferredOf.merge(preferred, 1, Integer::sum);
                if (pr.leader() != preferred) {
                    TopicPartition tp = new TopicPartition(t.name(), e.getKey());
                    notLeading.computeIfAbsent(preferred, b -> new ArrayList<>()).add(tp);
                    topics.put(tp, t);
                }
            }
        }
        Decision d = new Decision(image);
        List<TopicPartition> moved = new ArrayList<>();
        for (Map.Entry<Integer, List<TopicPartition>> e : new TreeMap<>(notLeading).entrySet()) {
            double ratio = (double) e.getValue().size() / preferredOf.get(e.getKey());
            if (ratio * 100 <= settings.leaderImbalancePerBrokerPercentage()) continue;
            for (TopicPartition tp : e.getValue()) {
                TopicImage t = topics.get(tp);
                PartitionRegistration cur = d.image().topic(t.id()).orElseThrow().partition(tp.partition());
                if (electPreferred(d, t, tp.partition(), cur) == Errors.NONE) moved.add(tp);
            }
        }
        return d.result(moved);
    }
}
