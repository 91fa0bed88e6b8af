package io.faultline.broker.controller;

import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.metadata.MetadataRecord.RemoveTopicRecord;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.metadata.TopicImage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.Errors;

/**
 * Topics and partitions after creation (Kafka's ReplicationControlManager): DeleteTopics by name or id,
 * CreatePartitions (increase only), and AlterPartition from partition leaders, checked against the broker epoch,
 * the leader epoch (FENCED_LEADER_EPOCH) and the partition epoch (INVALID_UPDATE_VERSION).
 */
final class ReplicationControl {
    private final ControllerSettings settings;
    private final Placement placement;

    ReplicationControl(ControllerSettings settings, Placement placement) {
        this.settings = settings;
        this.placement = placement;
    }

    ControllerResult<DeleteTopicsResponseData> deleteTopics(MetadataImage image, DeleteTopicsRequestData req) {
        Decision d = new Decision(image);
        DeleteTopicsResponseData resp = new DeleteTopicsResponseData();
        Set<Uuid> deleted = new HashSet<>();
        for (String name : req.topicNames()) delete(d, resp, deleted, name, null);
        for (DeleteTopicsRequestData.DeleteTopicState s : req.topics()) {
            boolean byId = s.topicId() != null && !s.topicId().equals(Uuid.ZERO_UUID);
            delete(d, resp, deleted, byId ? null : s.name(), byId ? s.topicId() : null);
        }
        return d.result(resp);
    }

    private static void delete(Decision d, DeleteTopicsResponseData resp, Set<Uuid> deleted, String name, Uuid id) {
        Optional<TopicImage> t = id != null ? d.base().topic(id) : d.base().topic(name == null ? "" : name);
        DeletableTopicResult r = new DeletableTopicResult().setName(name).setTopicId(id == null ? Uuid.ZERO_UUID : id);
        if (t.isEmpty()) {
            Errors e = id != null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            resp.responses().add(r.setErrorCode(e.code()).setErrorMessage(e.message()));
            return;
        }
        r.setName(t.get().name()).setTopicId(t.get().id()).setErrorCode(Errors.NONE.code());
        if (deleted.add(t.get().id())) d.add(new RemoveTopicRecord(t.get().id()));
        resp.responses().add(r);
    }

    ControllerResult<CreatePartitionsResponseData> createPartitions(MetadataImage image, CreatePartitionsRequestData req) {
        Decision d = new Decision(image);
        CreatePartitionsResponseData resp = new CreatePartitionsResponseData();
        Set<String> names = new HashSet<>();
        Set<String> dup = new HashSet<>();
        req.topics().forEach(t -> {
            if (!names.add(t.name())) dup.add(t.name());
        });
        long requested = 0;
        for (CreatePartitionsRequestData.CreatePartitionsTopic t : req.topics()) {
            int have = image.topic(t.name()).map(TopicImage::partitionCount).orElse(0);
            requested += Math.max(0, (long) t.count() - have);
        }
        for (CreatePartitionsRequestData.CreatePartitionsTopic t : req.topics()) {
            CreatePartitionsTopicResult r = new CreatePartitionsTopicResult().setName(t.name());
            if (dup.contains(t.name())) {
                resp.results().add(r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("Duplicate topic name."));
                continue;
            }
            if (requested > settings.maxPartitionsPerRequest()) {
                resp.results().add(r.setErrorCode(Errors.POLICY_VIOLATION.code())
                        .setErrorMessage("Excessively large number of partitions per request."));
                continue;
            }
            Refusal no = addPartitions(d, t, req.validateOnly());
            if (no == null) {
                resp.results().add(r.setErrorCode(Errors.NONE.code()));
            } else {
                resp.results().add(r.setErrorCode(no.error().code()).setErrorMessage(no.message()));
            }
        }
        return d.result(resp);
    }

    /** Why a topic's request is refused. */
    private record Refusal(Errors error, String message) { }

    /** Adds the partitions (unless validateOnly); null when fine, else why not. */
    private Refusal addPartitions(Decision d, CreatePartitionsRequestData.CreatePartitionsTopic t, boolean validateOnly) {
        MetadataImage image = d.image();
        Optional<TopicImage> topic = image.topic(t.name());
        if (topic.isEmpty()) return new Refusal(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + t.name() + "' does not exist.");
        int have = topic.get().partitionCount();
        if (t.count() < have) {
            return new Refusal(Errors.INVALID_PARTITIONS, "The topic " + t.name() + " currently has " + have
                    + " partition(s); " + t.count() + " would not be an increase.");
        }
        if (t.count() == have) return new Refusal(Errors.INVALID_PARTITIONS, "Topic already has " + have + " partition(s).");
        if (t.count() > settings.maxPartitionsPerTopic()) {
            return new Refusal(Errors.INVALID_PARTITIONS, "Number of partitions " + t.count() + " exceeds the maximum of "
                    + settings.maxPartitionsPerTopic() + " per topic.");
        }
        int adding = t.count() - have;
        if ((long) image.totalPartitions() + adding > settings.maxPartitionsTotal()) {
            return new Refusal(Errors.POLICY_VIOLATION, "Adding " + adding + " partition(s) would bring the cluster above its limit of "
                    + settings.maxPartitionsTotal() + " partitions.");
        }
        int rf = topic.get().partition(0).replicas().size();
        List<List<Integer>> assignment;
        if (t.assignments() != null && !t.assignments().isEmpty()) {
            if (t.assignments().size() != adding) {
                return new Refusal(Errors.INVALID_REPLICA_ASSIGNMENT, "Attempted to add " + adding + " additional partition(s), but only "
                        + t.assignments().size() + " assignment(s) were specified.");
            }
            assignment = new ArrayList<>();
            for (int i = 0; i < adding; i++) {
                Placement.Checked<List<Integer>> r = Placement.checkReplicas(image, t.assignments().get(i).brokerIds(), have + i);
                if (r.isRefused()) return new Refusal(Errors.INVALID_REPLICA_ASSIGNMENT, r.error());
                List<Integer> replicas = r.value();
                if (replicas.size() != rf) {
                    return new Refusal(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment for partition "
                            + (have + i) + " has " + replicas.size() + " replica(s), but the topic's replication factor is " + rf + ".");
                }
                assignment.add(replicas);
            }
        } else {
            int live = placement.activeBrokers(image).size();
            if (rf > live) {
                return new Refusal(Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition " + rf
                        + " time(s): only " + live + " broker(s) are registered and unfenced.");
            }
            assignment = placement.place(image, adding, rf);
        }
        if (validateOnly) return null;
        for (int i = 0; i < adding; i++) {
            List<Integer> replicas = assignment.get(i);
            List<Integer> isr = replicas.stream().filter(b -> PartitionChanges.isActive(image, b)).toList();
            d.add(new PartitionRecord(topic.get().id(), have + i, replicas, isr, isr.get(0), 0, 0));
        }
        return null;
    }

    ControllerResult<AlterPartitionResponseData> alterPartition(MetadataImage image, AlterPartitionRequestData req) {
        AlterPartitionResponseData resp = new AlterPartitionResponseData();
        BrokerRegistration requester = image.brokers().get(req.brokerId());
        if (requester == null || (req.brokerEpoch() != -1 && requester.epoch() != req.brokerEpoch())) {
            return ControllerResult.of(resp.setErrorCode(Errors.STALE_BROKER_EPOCH.code()));
        }
        Decision d = new Decision(image);
        for (AlterPartitionRequestData.TopicData td : req.topics()) {
            AlterPartitionResponseData.TopicData out = new AlterPartitionResponseData.TopicData().setTopicId(td.topicId());
            resp.topics().add(out);
            Optional<TopicImage> topic = d.image().topic(td.topicId());
            for (AlterPartitionRequestData.PartitionData pd : td.partitions()) {
                AlterPartitionResponseData.PartitionData po = new AlterPartitionResponseData.PartitionData()
                        .setPartitionIndex(pd.partitionIndex());
                out.partitions().add(po);
                if (topic.isEmpty()) {
                    po.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                    continue;
                }
                Errors e = alterOne(d, topic.get(), req.brokerId(), pd);
                if (e != Errors.NONE) {
                    po.setErrorCode(e.code());
                    continue;
                }
                PartitionRegistration now = d.image().topic(td.topicId()).orElseThrow().partition(pd.partitionIndex());
                po.setErrorCode(Errors.NONE.code()).setLeaderId(now.leader()).setLeaderEpoch(now.leaderEpoch())
                        .setIsr(new ArrayList<>(now.isr())).setPartitionEpoch(now.partitionEpoch());
            }
        }
        return d.result(resp);
    }

    private Errors alterOne(Decision d, TopicImage topic, int brokerId, AlterPartitionRequestData.PartitionData pd) {
        PartitionRegistration cur = d.image().topic(topic.id()).orElseThrow().partition(pd.partitionIndex());
        if (cur == null) return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        if (pd.leaderEpoch() != cur.leaderEpoch()) return Errors.FENCED_LEADER_EPOCH;
        if (cur.leader() != brokerId) return Errors.INVALID_REQUEST;
        if (pd.partitionEpoch() != cur.partitionEpoch()) return Errors.INVALID_UPDATE_VERSION;
        List<Integer> newIsr = new ArrayList<>();
        if (!pd.newIsrWithEpochs().isEmpty()) {
            for (AlterPartitionRequestData.BrokerState s : pd.newIsrWithEpochs()) {
                BrokerRegistration b = d.image().brokers().get(s.brokerId());
                if (!cur.isr().contains(s.brokerId()) && b != null && s.brokerEpoch() != -1 && b.epoch() != s.brokerEpoch()) {
                    return Errors.INELIGIBLE_REPLICA;
                }
                newIsr.add(s.brokerId());
            }
        } else {
            newIsr.addAll(pd.newIsr());
        }
        if (newIsr.isEmpty() || new HashSet<>(newIsr).size() != newIsr.size() || !newIsr.contains(brokerId)) {
            return Errors.INVALID_REQUEST;
        }
        for (int r : newIsr) {
            if (!cur.replicas().contains(r)) return Errors.INVALID_REQUEST;
            if (!cur.isr().contains(r) && !PartitionChanges.isActive(d.image(), r)) return Errors.INELIGIBLE_REPLICA;
        }
        PartitionChanges.change(d, topic, pd.partitionIndex(), newIsr, settings);
        // The ISR grew: a reassignment whose new replicas are now all in sync completes in the same decision.
        Reassignments.maybeComplete(d, topic, pd.partitionIndex());
        return Errors.NONE;
    }
}
