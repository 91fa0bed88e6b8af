package io.faultline.broker.controller;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;

import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord.PartitionChangeRecord;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Leader election and ISR changes (Kafka's PartitionChangeBuilder): given a target ISR, keep the current leader if
 * it is still acceptable, else elect the first live ISR member in replica order; with no live ISR member the
 * partition goes offline (leader -1) unless the topic allows unclean election, then the first live replica
 * leads with an ISR of just itself. A leader change bumps the leader epoch; any change bumps the partition epoch.
 */
final class PartitionChanges {
    private PartitionChanges() { }

    /** May {@code brokerId} lead or be added to an ISR in {@code image}? */
    static boolean isActive(MetadataImage image, int brokerId) {
        BrokerRegistration b = image.brokers().get(brokerId);
        return b != null && b.isActive();
    }

    /**
     * The topic's unclean.leader.election.enable, else the cluster-wide dynamic default, else the controller's own
     * static setting (server.properties), as Kafka's controller resolves it.
     */
    static boolean uncleanAllowed(MetadataImage image, String topic, boolean staticDefault) {
        String v = image.topicConfig(topic).get(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
        if (v == null) v = image.brokerConfig("").get(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
        return v == null ? staticDefault : Boolean.parseBoolean(v);
    }

    /**
     * Moves partition {@code p} of {@code topic} to {@code targetIsr} (non-empty, within the replicas), electing
     * a leader as described above; adds a record to {@code d} only if something changes.
     */
    static void change(Decision d, TopicImage topic, int p, List<Integer> targetIsr, ControllerSettings settings) {
        MetadataImage img = d.image();
        change(d, img, topic, p, img.topic(topic.id()).orElseThrow().partition(p), targetIsr, settings);
    }

    /**
     * As above, with the partition's current registration {@code cur} and the image {@code img} that tells broker
     * liveness and configs given by the caller (loops over many partitions read the decision's image once).
     */
    static void change(Decision d, MetadataImage img, TopicImage topic, int p, PartitionRegistration cur,
                       List<Integer> targetIsr, ControllerSettings settings) {
        SeededBugs bugs = settings.bugs();
        boolean anyReplica = bugs.on(SeededBug.ELECTION_IGNORES_ISR);
        List<Integer> isr = List.copyOf(targetIsr);
        int leader = PartitionRegistration.NO_LEADER;
        if (cur.hasLeader() && isr.contains(cur.leader()) && isActive(img, cur.leader())) {
            leader = cur.leader();
        } else {
            for (int r : cur.replicas()) {
                if ((isr.contains(r) || anyReplica) && isActive(img, r)) {
                    leader = r;
                    if (!isr.contains(r)) { // seeded: an out-of-sync replica leads and joins the ISR
                        isr = new ArrayList<>(isr);
                        isr.add(r);
                        isr = List.copyOf(isr);
                    }
                    break;
                }
            }
            if (leader == PartitionRegistration.NO_LEADER && uncleanAllowed(img, topic.name(), settings.uncleanLeaderElection())) {
                for (int r : cur.replicas()) {
                    if (isActive(img, r)) {
                        leader = r;
                        isr = List.of(r);
                        break;
                    }
                }
            }
        }
        boolean leaderChanged = leader != cur.leader();
        boolean isrChanged = !isr.equals(cur.isr());
        if (!leaderChanged && !isrChanged) return;
        d.add(new PartitionChangeRecord(topic.id(), p, isrChanged ? Optional.of(isr) : Optional.empty(),
                leaderChanged ? OptionalInt.of(leader) : OptionalInt.empty(),
                cur.leaderEpoch() + (leaderChanged && !bugs.on(SeededBug.EPOCH_NOT_BUMPED) ? 1 : 0),
                cur.partitionEpoch() + 1));
    }

    /**
     * The broker may no longer lead or be in sync (fenced or shutting down): drop it from every ISR (never
     * below one member) and re-elect where it led.
     */
    static void removeBroker(Decision d, int brokerId, ControllerSettings settings) {
        MetadataImage img = d.image();
        for (TopicImage t : sortedTopics(img)) {
            for (Map.Entry<Integer, PartitionRegistration> e : t.partitions().entrySet()) {
                PartitionRegistration pr = e.getValue();
                if (!pr.isr().contains(brokerId) && pr.leader() != brokerId) continue;
                List<Integer> isr = new ArrayList<>(pr.isr());
                if (isr.size() > 1) isr.remove(Integer.valueOf(brokerId));
                change(d, img, t, e.getKey(), pr, isr, settings);
            }
        }
    }

    /** A broker became active: give it the offline partitions it can lead (clean, or unclean where allowed). */
    static void electOffline(Decision d, int brokerId, ControllerSettings settings) {
        MetadataImage img = d.image();
        for (TopicImage t : sortedTopics(img)) {
            for (Map.Entry<Integer, PartitionRegistration> e : t.partitions().entrySet()) {
                PartitionRegistration pr = e.getValue();
                if (pr.hasLeader() || !pr.replicas().contains(brokerId)) continue;
                change(d, img, t, e.getKey(), pr, pr.isr(), settings);
            }
        }
    }

    /** Elects a leader for every leaderless partition that can have one now. */
    static void electLeaderless(Decision d, ControllerSettings settings) {
        MetadataImage img = d.image();
        for (TopicImage t : sortedTopics(img)) {
            for (Map.Entry<Integer, PartitionRegistration> e : t.partitions().entrySet()) {
                if (!e.getValue().hasLeader()) change(d, img, t, e.getKey(), e.getValue(), e.getValue().isr(), settings);
            }
        }
    }

    /** Does {@code brokerId} lead any partition? */
    static boolean leadsAny(MetadataImage image, int brokerId) {
        for (TopicImage t : image.topicsById().values()) {
            for (PartitionRegistration pr : t.partitions().values()) {
                if (pr.leader() == brokerId) return true;
            }
        }
        return false;
    }

    /** Topics in a fixed order (by id), so decisions are deterministic. */
    static List<TopicImage> sortedTopics(MetadataImage image) {
        List<TopicImage> ts = new ArrayList<>(image.topicsById().values());
        ts.sort((a, b) -> a.id().compareTo(b.id()));
        return ts;
    }
}
