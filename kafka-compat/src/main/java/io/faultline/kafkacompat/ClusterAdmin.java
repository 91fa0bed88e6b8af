package io.faultline.kafkacompat;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The questions the harness asks a Kafka-protocol cluster (who is up, who leads a partition, who is the controller),
 * answered through whichever kafka-clients line the brokers speak. Every method waits at most a few seconds and
 * throws when the cluster does not answer; callers treat that as "not known now".
 */
public interface ClusterAdmin extends AutoCloseable {

    /** Leader (empty: none), replicas in assignment order and in-sync replicas of one partition, by broker id. */
    record PartitionState(OptionalInt leader, List<Integer> replicas, List<Integer> isr) {
        public PartitionState {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
        }
    }

    /** An admin client of this line with the harness' short timeouts. */
    static ClusterAdmin open(String bootstrapServers, KafkaClientLine line) {
        return (ClusterAdmin) line.invokeStatic("io.faultline.kafkacompat.AdminClusterAdmin", "create",
                new Class<?>[]{String.class}, bootstrapServers);
    }

    /** Ids of the brokers the cluster's metadata lists now. */
    Set<Integer> brokerIds() throws Exception;

    /** The controller the Metadata response names: in ZooKeeper mode the active controller, in KRaft a random broker. */
    OptionalInt metadataControllerId() throws Exception;

    /** The KRaft quorum's leader (the active controller); empty where the cluster has no KRaft quorum. */
    OptionalInt quorumLeaderId() throws Exception;

    Optional<PartitionState> partition(String topic, int partition) throws Exception;

    /** Sets a cluster-wide dynamic broker default (IncrementalAlterConfigs, brokers from 2.3). */
    void setClusterDefault(String key, String value) throws Exception;

    @Override
    void close();
}
