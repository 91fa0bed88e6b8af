package io.faultline.broker.controller;

import io.faultline.broker.metadata.BrokerRegistration;
import io.faultline.broker.metadata.MetadataImage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;

/**
 * Replica placement: round-robin over the active (unfenced, not shutting down) brokers in id order, starting
 * at a position that rotates with every placement so first replicas (preferred leaders) spread out.
 */
final class Placement {
    private int nextStart;

    /** A checked manual assignment: the value, or why it is refused. */
    record Checked<T>(T value, String error) {
        static <T> Checked<T> ok(T value) {
            return new Checked<>(value, null);
        }

        static <T> Checked<T> refused(String why) {
            return new Checked<>(null, why);
        }

        boolean isRefused() {
            return error != null;
        }
    }

    List<Integer> activeBrokers(MetadataImage image) {
        List<Integer> ids = new ArrayList<>();
        for (BrokerRegistration b : image.brokers().values()) {
            if (b.isActive()) ids.add(b.id());
        }
        ids.sort(null);
        return ids;
    }

    /** Assignments for {@code partitions} new partitions of {@code rf} replicas; caller checked rf ≤ active. */
    List<List<Integer>> place(MetadataImage image, int partitions, int rf) {
        List<Integer> live = activeBrokers(image);
        if (rf > live.size()) throw new IllegalArgumentException("rf " + rf + " > " + live.size() + " active brokers");
        int start = Math.floorMod(nextStart++, live.size());
        List<List<Integer>> out = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            List<Integer> replicas = new ArrayList<>(rf);
            for (int r = 0; r < rf; r++) replicas.add(live.get((start + p + r) % live.size()));
            out.add(List.copyOf(replicas));
        }
        return out;
    }

    /** Checks a manual assignment: the replica lists by partition, or what is wrong with it. */
    static Checked<List<List<Integer>>> checkManual(MetadataImage image, CreatableTopic t) {
        List<List<Integer>> out = new ArrayList<>();
        for (int i = 0; i < t.assignments().size(); i++) out.add(null);
        for (CreatableReplicaAssignment a : t.assignments()) {
            int p = a.partitionIndex();
            if (p < 0 || p >= out.size() || out.get(p) != null) {
                return Checked.refused("Partitions must be numbered 0.." + (out.size() - 1) + " with no duplicates; got " + p + ".");
            }
            Checked<List<Integer>> replicas = checkReplicas(image, a.brokerIds(), p);
            if (replicas.isRefused()) return Checked.refused(replicas.error());
            out.set(p, replicas.value());
        }
        int size = out.get(0).size();
        for (List<Integer> r : out) {
            if (r.size() != size) return Checked.refused("All partitions must have the same number of replicas.");
        }
        return Checked.ok(out);
    }

    /** Checks one partition's replica list: non-empty, distinct, registered, at least one active. */
    static Checked<List<Integer>> checkReplicas(MetadataImage image, List<Integer> brokerIds, int partition) {
        if (brokerIds.isEmpty()) return Checked.refused("The manual partition assignment for partition " + partition + " is empty.");
        Set<Integer> seen = new HashSet<>();
        boolean anyActive = false;
        for (int b : brokerIds) {
            if (!seen.add(b)) {
                return Checked.refused("The manual partition assignment for partition " + partition + " contains duplicate broker " + b + ".");
            }
            if (!image.brokers().containsKey(b)) {
                return Checked.refused("The manual partition assignment for partition " + partition + " includes broker " + b
                        + ", but no such broker is registered.");
            }
            anyActive |= image.brokers().get(b).isActive();
        }
        if (!anyActive) {
            return Checked.refused("All brokers specified in the manual partition assignment for partition " + partition
                    + " are fenced or in controlled shutdown.");
        }
        return Checked.ok(List.copyOf(brokerIds));
    }
}
