package io.faultline.nemesis.observe;

import io.faultline.checker.observe.ClusterSnapshot;
import io.faultline.checker.observe.ClusterSnapshot.PartitionState;
import io.faultline.checker.observe.Transition;
import io.faultline.checker.observe.Transitions;
import io.faultline.docker.sut.KafkaAdmin;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Watches a Kafka-protocol cluster's state through the Admin API, the same way for Apache Kafka and broker-impl: every
 * {@code period} it reads the active controller (the metadata quorum's leader where the system describes its quorum,
 * else the cluster's controller), the serving brokers, and the leader, replicas and ISR of every watched topic's
 * partitions, and turns each change into abstract {@link Transition}s. Runs on a daemon thread of its own; a poll no
 * broker answers in time is itself a state (metadata-unavailable).
 */
public final class MetadataObserver implements AutoCloseable {
    private final String bootstrap;
    private final Predicate<String> watch;
    private final Duration period;
    private final LongSupplier now;
    private final Consumer<Transition> onTransition;
    private final Transitions transitions = new Transitions();
    private final List<Transition> seen = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;
    private volatile Boolean quorumDescribed; // null until the first poll tells
    private Thread thread;
    private volatile int polls;
    /** Polls begun so far, and the latest snapshot with the number of the poll that took it (guarded by this). */
    private long pollsBegun;
    private long latestPoll;
    private ClusterSnapshot latest;

    /**
     * @param watch        which topics to follow (new ones are picked up as they appear: rotated keys)
     * @param now          the run's time base, nanoseconds
     * @param onTransition told of each transition as it is seen (e.g. a line in the run's log)
     */
    public MetadataObserver(String bootstrap, Predicate<String> watch, Duration period, LongSupplier now,
                            Consumer<Transition> onTransition) {
        this.bootstrap = bootstrap;
        this.watch = watch;
        this.period = period;
        this.now = now;
        this.onTransition = onTransition;
    }

    /** Topics named {@code prefix-<n>}: a run's queue topics, rotated ones included. */
    public static Predicate<String> topicsOf(List<String> targets) {
        Set<String> prefixes = new HashSet<>();
        for (String t : targets) prefixes.add(t.replaceAll("-\\d+$", "-"));
        return name -> targets.contains(name) || prefixes.stream().anyMatch(p -> name.startsWith(p) && name.substring(p.length()).matches("\\d+"));
    }

    public synchronized void start() {
        if (thread != null) return;
        thread = new Thread(this::loop, "faultline-observer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Every transition seen so far, in order. */
    public List<Transition> transitions() {
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    public int polls() {
        return polls;
    }

    private void loop() {
        try (Admin admin = KafkaAdmin.create(bootstrap)) {
            while (!stopped) {
                long t0 = System.nanoTime();
                pollOnce(admin);
                long left = period.toNanos() - (System.nanoTime() - t0);
                if (left > 0) Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // the admin client could not even be made: nothing to observe
        }
    }

    /** One poll: a snapshot, compared with the last one. */
    void pollOnce(Admin admin) {
        long poll = beginPoll();
        record(poll, snapshot(admin));
    }

    synchronized long beginPoll() {
        return ++pollsBegun;
    }

    /** Takes in the snapshot of poll number {@code poll}: its transitions, and it as the latest state seen. */
    void record(long poll, ClusterSnapshot snapshot) {
        polls++;
        for (Transition t : transitions.next(now.getAsLong(), snapshot)) {
            seen.add(t);
            onTransition.accept(t);
        }
        synchronized (this) {
            if (poll > latestPoll) {
                latestPoll = poll;
                latest = snapshot;
            }
            notifyAll();
        }
    }

    /**
     * Whether a snapshot shows a settled cluster: it answered, and every watched partition has a leader and its whole
     * replica set in its ISR.
     */
    static boolean settled(ClusterSnapshot s) {
        if (!s.answered()) return false;
        for (PartitionState p : s.partitions().values()) {
            if (p.leader() < 0 || !p.isr().containsAll(p.replicas())) return false;
        }
        return true;
    }

    /**
     * Waits until a poll begun after this call finds the cluster settled (true; see {@link #settled}) or {@code max}
     * has passed (false). What is seen meanwhile is recorded as ever, so a caller that waits here for recovery instead
     * of sleeping a fixed time keeps the recovery's transitions and stops as soon as they are over.
     */
    public boolean awaitSettled(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            long after = pollsBegun;
            while (!(latestPoll > after && settled(latest))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }
    }

    private ClusterSnapshot snapshot(Admin admin) {
        try {
            Set<Integer> brokers = new HashSet<>();
            var cluster = admin.describeCluster();
            for (Node n : cluster.nodes().get(3, TimeUnit.SECONDS)) brokers.add(n.id());
            int controller = controller(admin, cluster);
            List<String> topics = admin.listTopics().names().get(3, TimeUnit.SECONDS).stream().filter(watch).sorted().toList();
            Map<String, PartitionState> partitions = new TreeMap<>();
            if (!topics.isEmpty()) {
                Map<String, TopicDescription> d = admin.describeTopics(topics).allTopicNames().get(3, TimeUnit.SECONDS);
                d.forEach((topic, description) -> {
                    for (TopicPartitionInfo p : description.partitions()) {
                        int leader = p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id();
                        partitions.put(topic + "-" + p.partition(), new PartitionState(leader,
                                p.replicas().stream().map(Node::id).toList(),
                                new HashSet<>(p.isr().stream().map(Node::id).toList())));
                    }
                });
            }
            return new ClusterSnapshot(true, controller, brokers, partitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ClusterSnapshot.unanswered();
        } catch (Exception e) {
            return ClusterSnapshot.unanswered();
        }
    }

    /** The metadata quorum's leader where the system describes its quorum (Kafka), else the cluster's controller. */
    private int controller(Admin admin, org.apache.kafka.clients.admin.DescribeClusterResult cluster) throws Exception {
        if (!Boolean.FALSE.equals(quorumDescribed)) {
            try {
                int id = admin.describeMetadataQuorum().quorumInfo().get(3, TimeUnit.SECONDS).leaderId();
                quorumDescribed = true;
                return id;
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnsupportedVersionException)) {
                    if (Boolean.TRUE.equals(quorumDescribed)) return -1; // it answers this normally: no leader now
                    throw e;
                }
                quorumDescribed = false;
            }
        }
        Node c = cluster.controller().get(3, TimeUnit.SECONDS);
        return c == null || c.isEmpty() ? -1 : c.id();
    }

    @Override
    public void close() {
        stopped = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            t.interrupt();
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
