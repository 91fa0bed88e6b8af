package io.faultline.nemesis.membership;

import io.faultline.docker.sut.KafkaAdmin;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.Nemesis;
import io.faultline.nemesis.NemesisContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.PreferredLeaderNotAvailableException;

/**
 * Membership changes through the system's own Admin API, as an operator makes them during a run:
 * <ul>
 *   <li>{@code move-replicas} ({@link Move}): reassigns a workload partition to another replica set of the same size
 *   ({@link ReplicaMoves}); new replicas must catch up while the workload writes, and a removed leader hands over;</li>
 *   <li>{@code reassign} ({@link Reassign}): reassigns a partition to exactly the replicas given, in order: a replica
 *   set shrunk (a removed replica's log is deleted) or grown (an added one copies the log from its start), or reordered
 *   (the first is the preferred leader);</li>
 *   <li>{@code elect-preferred} ({@link Elect}): a preferred-leader election of the workload partitions (leadership
 *   moves back to the first replica where it is in sync);</li>
 *   <li>{@code cancel-moves}: cancels every reassignment still in progress (the heal: a move stuck behind a fault
 *   does not outlive the run).</li>
 * </ul>
 * The result says what was asked and answered (old → new replicas, each partition's election outcome, what was
 * cancelled). A call that fails as a whole (no broker answers) fails the op.
 */
public final class MembershipNemesis implements Nemesis {
    public static final String MOVE = "move-replicas";
    public static final String ELECT = "elect-preferred";
    public static final String CANCEL = "cancel-moves";
    public static final String REASSIGN = "reassign";
    private static final Duration CALL = Duration.ofSeconds(30);

    /** Move one partition's replicas. */
    public record Move(PartitionRef partition) { }

    /** Reassign one partition to exactly these brokers, in this order. */
    public record Reassign(PartitionRef partition, List<Integer> replicas) {
        public Reassign {
            replicas = List.copyOf(replicas);
            if (replicas.isEmpty() || replicas.stream().distinct().count() != replicas.size()) {
                throw new IllegalArgumentException("a replica set of distinct brokers, got " + replicas);
            }
        }
    }

    /** Preferred-leader election of these partitions. */
    public record Elect(List<PartitionRef> partitions) {
        public Elect {
            partitions = List.copyOf(partitions);
        }
    }

    private final Function<NemesisContext, String> bootstrap;
    private Admin admin; // guarded by this

    /** Talks to the system under test at its bootstrap servers. */
    public MembershipNemesis() {
        this(ctx -> ctx.sut().orElseThrow(() -> new IllegalStateException("membership faults need a system under test"))
                .bootstrapServers(ctx.cluster()));
    }

    public MembershipNemesis(Function<NemesisContext, String> bootstrap) {
        this.bootstrap = bootstrap;
    }

    @Override
    public Set<String> fs() {
        return Set.of(MOVE, REASSIGN, ELECT, CANCEL);
    }

    @Override
    public FaultOp invoke(NemesisContext ctx, FaultOp op) {
        try {
            return switch (op.f()) {
                case MOVE -> op.completed(move(ctx, (Move) op.value()));
                case REASSIGN -> op.completed(reassign(ctx, (Reassign) op.value()));
                case ELECT -> op.completed(elect(ctx, (Elect) op.value()));
                case CANCEL -> op.completed(cancel(ctx));
                default -> throw new IllegalArgumentException("membership nemesis cannot " + op.f());
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(op.f() + " interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(op.f() + ": " + e.getCause(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(op.f() + ": no answer in " + CALL.toSeconds() + " s", e);
        }
    }

    private synchronized Admin admin(NemesisContext ctx) {
        if (admin == null) admin = KafkaAdmin.create(bootstrap.apply(ctx));
        return admin;
    }

    private String move(NemesisContext ctx, Move m) throws InterruptedException, ExecutionException,
            java.util.concurrent.TimeoutException {
        Admin a = admin(ctx);
        TopicPartition tp = new TopicPartition(m.partition().topic(), m.partition().partition());
        TopicDescription d = a.describeTopics(List.of(tp.topic())).allTopicNames()
                .get(CALL.toMillis(), TimeUnit.MILLISECONDS).get(tp.topic());
        TopicPartitionInfo info = d.partitions().stream().filter(p -> p.partition() == tp.partition()).findFirst()
                .orElseThrow(() -> new IllegalStateException(tp + " does not exist"));
        // A move in progress shows its adding replicas in the replica set: move from the original ones.
        PartitionReassignment pending = a.listPartitionReassignments(Set.of(tp)).reassignments()
                .get(CALL.toMillis(), TimeUnit.MILLISECONDS).get(tp);
        List<Integer> current = new ArrayList<>(info.replicas().stream().map(Node::id).toList());
        if (pending != null) current.removeAll(pending.addingReplicas());
        List<Integer> brokers = a.describeCluster().nodes().get(CALL.toMillis(), TimeUnit.MILLISECONDS).stream()
                .map(Node::id).toList();
        List<Integer> target = ReplicaMoves.target(current, brokers, ctx.random());
        a.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(target)))).all()
                .get(CALL.toMillis(), TimeUnit.MILLISECONDS);
        return tp + " " + current + " -> " + target;
    }

    private String reassign(NemesisContext ctx, Reassign r) throws InterruptedException, ExecutionException,
            java.util.concurrent.TimeoutException {
        Admin a = admin(ctx);
        TopicPartition tp = new TopicPartition(r.partition().topic(), r.partition().partition());
        List<Integer> current = a.describeTopics(List.of(tp.topic())).allTopicNames().get(CALL.toMillis(), TimeUnit.MILLISECONDS)
                .get(tp.topic()).partitions().stream().filter(p -> p.partition() == tp.partition()).findFirst()
                .orElseThrow(() -> new IllegalStateException(tp + " does not exist")).replicas().stream().map(Node::id).toList();
        a.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(r.replicas())))).all()
                .get(CALL.toMillis(), TimeUnit.MILLISECONDS);
        return tp + " " + current + " -> " + r.replicas();
    }

    private String elect(NemesisContext ctx, Elect e) throws InterruptedException, ExecutionException,
            java.util.concurrent.TimeoutException {
        Set<TopicPartition> tps = new HashSet<>();
        for (PartitionRef p : e.partitions()) tps.add(new TopicPartition(p.topic(), p.partition()));
        Map<TopicPartition, Optional<Throwable>> results = admin(ctx).electLeaders(ElectionType.PREFERRED, tps)
                .partitions().get(CALL.toMillis(), TimeUnit.MILLISECONDS);
        Map<String, String> out = new TreeMap<>();
        results.forEach((tp, error) -> out.put(tp.toString(), error.map(MembershipNemesis::outcome).orElse("elected")));
        return "preferred leaders: " + out;
    }

    private static String outcome(Throwable t) {
        if (t instanceof ElectionNotNeededException) return "already leads";
        if (t instanceof PreferredLeaderNotAvailableException) return "preferred not available";
        return t.getClass().getSimpleName();
    }

    private String cancel(NemesisContext ctx) throws InterruptedException, ExecutionException,
            java.util.concurrent.TimeoutException {
        Admin a = admin(ctx);
        Map<TopicPartition, PartitionReassignment> pending = a.listPartitionReassignments().reassignments()
                .get(CALL.toMillis(), TimeUnit.MILLISECONDS);
        if (pending.isEmpty()) return "no move in progress";
        Map<TopicPartition, Optional<NewPartitionReassignment>> cancel = new java.util.HashMap<>();
        pending.keySet().forEach(tp -> cancel.put(tp, Optional.empty()));
        Map<TopicPartition, KafkaFuture<Void>> answers = a.alterPartitionReassignments(cancel).values();
        List<String> cancelled = new ArrayList<>();
        List<String> finished = new ArrayList<>();
        List<TopicPartition> order = answers.keySet().stream()
                .sorted(java.util.Comparator.comparing(TopicPartition::toString)).toList();
        for (TopicPartition tp : order) {
            try {
                answers.get(tp).get(CALL.toMillis(), TimeUnit.MILLISECONDS);
                cancelled.add(tp.toString());
            } catch (ExecutionException x) {
                if (!(x.getCause() instanceof NoReassignmentInProgressException)) throw x;
                finished.add(tp.toString()); // it completed between the list and the cancel
            }
        }
        return "cancelled " + cancelled + (finished.isEmpty() ? "" : ", completed meanwhile " + finished);
    }

    @Override
    public synchronized void teardown(NemesisContext ctx) {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
            admin = null;
        }
    }
}
