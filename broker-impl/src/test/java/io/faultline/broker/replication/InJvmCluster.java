package io.faultline.broker.replication;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.ManualTime;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.LogManager;
import io.faultline.broker.storage.PartitionLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Brokers in one JVM, one partition, real logs on disk and the real replication path (fetchers, Fetch in the
 * wire format, leader answers), driven by hand on a manual clock. The controller is a test stand-in: it holds
 * leader, epochs and ISR, commits AlterPartition proposals (checking leader and partition epochs) and elects
 * when told to. Crashing a broker closes its logs (written data survives, as in the page cache after a process
 * kill) and stops its fetchers; a test can also cut the tail of a log to model a power failure.
 */
final class InJvmCluster implements AutoCloseable, IsrChangeSender {
    static final TopicPartition TP = new TopicPartition("t", 0);
    static final Uuid TOPIC_ID = new Uuid(12L, 34L);

    final ManualTime time = new ManualTime();
    private final Path root;
    private final ReplicationConfig config;
    private final int minIsr;
    private final List<Integer> replicas;
    final Map<Integer, Node> nodes = new LinkedHashMap<>();
    // controller state
    int leader = -1;
    int leaderEpoch = -1;
    int partitionEpoch = 0;
    Set<Integer> isr;
    /** HW samples per leadership, checked to never go down within one. */
    private final Map<Integer, Long> lastHwByEpoch = new HashMap<>();

    final class Node {
        final int id;
        final Map<Integer, LoopbackEndpoint> links = new HashMap<>();
        LogManager logs;
        PartitionLog log;
        ReplicaFetcherManager fetchers;
        PartitionReplication repl;
        ReplicaRequestHandler handler;
        boolean alive;
        /** Stopped (SIGSTOP): no metadata, no fetching, unreachable. */
        boolean paused;

        Node(int id) {
            this.id = id;
        }

        void start() {
            try {
                logs = LogManager.open(root.resolve("node-" + id), tp -> LogConfig.DEFAULT, time);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            log = logs.getOrCreateLog(TP);
            fetchers = new ReplicaFetcherManager(id, time, config, this::link, false);
            repl = new PartitionReplication(id, TP, TOPIC_ID, ReplicaLog.of(log), time, fetchers, InJvmCluster.this,
                    () -> { });
            handler = new ReplicaRequestHandler(ReplicaRequestHandler.of(
                    tp -> tp.equals(TP) ? repl.leader() : Optional.empty(),
                    topicId -> topicId.equals(TOPIC_ID) ? Optional.of(TP.topic()) : Optional.empty()));
            alive = true;
        }

        /** The link this node fetches over from {@code source}. */
        LoopbackEndpoint link(int source) {
            return links.computeIfAbsent(source, s -> new LoopbackEndpoint(() -> {
                Node n = nodes.get(s);
                return n.alive && !n.paused ? n.handler : null;
            }));
        }

        void crash() {
            fetchers.close();
            logs.close();
            alive = false;
        }

        Optional<LeaderState> leaderState() {
            return repl.leader();
        }

        List<String> values() {
            return Records.valuesOf(log);
        }
    }

    InJvmCluster(Path root, int brokers, int minIsr, ReplicationConfig config) {
        this.root = root;
        this.config = config;
        this.minIsr = minIsr;
        this.replicas = new ArrayList<>();
        for (int i = 1; i <= brokers; i++) {
            replicas.add(i);
            Node n = new Node(i);
            nodes.put(i, n);
            n.start();
        }
        this.isr = new HashSet<>(replicas);
    }

    Node node(int id) {
        return nodes.get(id);
    }

    Node leaderNode() {
        return nodes.get(leader);
    }

    /** Clean election of {@code newLeader} from the ISR, a new leader epoch, every live broker told. */
    void elect(int newLeader) {
        if (!isr.contains(newLeader)) throw new IllegalStateException(newLeader + " is not in ISR " + isr);
        forceElect(newLeader, isr);
    }

    /** Election with the given ISR (an unclean one, or a controller that had not seen the last change). */
    void forceElect(int newLeader, Set<Integer> newIsr) {
        leader = newLeader;
        leaderEpoch++;
        partitionEpoch++;
        isr = new HashSet<>(newIsr);
        isr.add(newLeader);
        for (Node n : nodes.values()) if (n.alive && !n.paused) tell(n);
    }

    void pause(int id) {
        nodes.get(id).paused = true;
    }

    /** Continues a stopped broker; it then learns the current metadata. */
    void resume(int id) {
        Node n = nodes.get(id);
        n.paused = false;
        tell(n);
    }

    /** What a (re)started broker learns from metadata. */
    void tell(Node n) {
        if (n.id == leader) {
            n.repl.becomeLeader(new LeaderState.Assignment(TP, TOPIC_ID, leaderEpoch, replicas, isr, partitionEpoch, minIsr));
        } else {
            n.repl.becomeFollower(leaderEpoch, leader);
        }
    }

    /** A broker is declared dead: it leaves the ISR (the last member stays, as Kafka keeps it). */
    void fence(int id) {
        if (isr.size() > 1 && isr.remove(id)) partitionEpoch++;
    }

    void restart(int id) {
        Node n = nodes.get(id);
        n.start();
        tell(n);
    }

    @Override
    public synchronized void submit(Proposal p, Consumer<Result> onResult) {
        if (p.leaderEpoch() != leaderEpoch || p.leaderId() != leader) {
            onResult.accept(new Result.Rejected(Errors.FENCED_LEADER_EPOCH));
        } else if (p.partitionEpoch() != partitionEpoch) {
            onResult.accept(new Result.Rejected(Errors.INVALID_UPDATE_VERSION));
        } else {
            isr = new HashSet<>(p.newIsr());
            partitionEpoch++;
            onResult.accept(new Result.Committed(isr, leaderEpoch, partitionEpoch));
        }
    }

    /** {@code rounds} fetch rounds of every live broker; checks the leader's HW never went down. */
    void replicate(int rounds) {
        for (int i = 0; i < rounds; i++) {
            for (Node n : nodes.values()) if (n.alive && !n.paused) n.fetchers.doWorkOnce();
            recordHw();
        }
    }

    /** Moves the clock (fetch back-offs expire) and runs the leader's ISR-shrink check. */
    void tick(long ms) {
        time.advance(ms);
        Node l = nodes.get(leader);
        if (l != null && l.alive) l.leaderState().ifPresent(LeaderState::maybeShrinkIsr);
        recordHw();
    }

    private void recordHw() {
        Node l = nodes.get(leader);
        if (l == null || !l.alive || l.leaderState().isEmpty()) return;
        long hw = l.log.highWatermark();
        Long before = lastHwByEpoch.put(leaderEpoch, hw);
        assertTrue(before == null || before <= hw, "HW went down from " + before + " to " + hw + " in epoch " + leaderEpoch);
    }

    /** acks=1: appended on the leader, answered at once; returns the last offset. */
    long produce(String... values) {
        Node l = nodes.get(leader);
        LeaderState ls = l.leaderState().orElseThrow();
        ls.checkEnoughReplicasForAppend((short) 1);
        long last = l.log.appendAsLeader(Records.values(values), ls.leaderEpoch()).lastOffset();
        ls.onLeaderAppend();
        return last;
    }

    /** acks=all: NOT_ENOUGH_REPLICAS before the append, else the answer after up to 10 fetch rounds. */
    Errors produceAcksAll(String... values) {
        Node l = nodes.get(leader);
        LeaderState ls = l.leaderState().orElseThrow();
        try {
            ls.checkEnoughReplicasForAppend((short) -1);
        } catch (NotEnoughReplicasException e) {
            return Errors.NOT_ENOUGH_REPLICAS;
        }
        MemoryRecords records = Records.values(values);
        long last = l.log.appendAsLeader(records, ls.leaderEpoch()).lastOffset();
        ls.onLeaderAppend();
        for (int i = 0; i < 10; i++) {
            Optional<Errors> done = ls.ackStatus(last + 1);
            if (done.isPresent()) return done.get();
            replicate(1);
        }
        return Errors.REQUEST_TIMED_OUT;
    }

    @Override
    public void close() {
        for (Node n : nodes.values()) if (n.alive) n.crash();
    }
}
