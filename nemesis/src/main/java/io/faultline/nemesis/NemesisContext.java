package io.faultline.nemesis;

import io.faultline.checker.history.HistoryRecorder;
import io.faultline.docker.Cluster;
import io.faultline.docker.Node;
import io.faultline.docker.sut.ControllerAware;
import io.faultline.docker.sut.LeaderAware;
import io.faultline.docker.sut.SegmentStorage;
import io.faultline.docker.sut.SutCluster;
import io.faultline.docker.sut.SystemUnderTest;
import io.faultline.nemesis.clock.ClockHistory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * Everything a nemesis may use: the cluster, the system under test's optional abilities (leaders, controller,
 * segment files), a seeded Random (so target choices repeat given the seed), the time base of the history, the
 * fault log and the per-node clock offset series.
 */
public final class NemesisContext implements ClusterView {
    private final Cluster cluster;
    private final SystemUnderTest sut;
    private final LeaderAware leaders;
    private final ControllerAware controller;
    private final SegmentStorage storage;
    private final Random random;
    private final long seed;
    private final LongSupplier nanoClock;
    private final FaultLog log;
    private final ClockHistory clocks;
    private final Duration stopGrace;

    private NemesisContext(Builder b) {
        this.cluster = b.cluster;
        this.sut = b.sut;
        this.leaders = b.leaders != null ? b.leaders : (b.sut instanceof LeaderAware l ? l : null);
        this.controller = b.controller != null ? b.controller : (b.sut instanceof ControllerAware c ? c : null);
        this.storage = b.storage != null ? b.storage : (b.sut instanceof SegmentStorage s ? s : null);
        this.seed = b.seed;
        this.random = new Random(b.seed);
        this.nanoClock = b.nanoClock;
        this.log = b.log;
        this.stopGrace = b.stopGrace != null ? b.stopGrace : (b.sut != null ? b.sut.stopGrace() : Duration.ofSeconds(5));
        this.clocks = new ClockHistory(nanoClock);
    }

    public static Builder builder(Cluster cluster) {
        return new Builder(cluster);
    }

    /** A context over a running system under test: its abilities come from the SUT itself. */
    public static Builder builder(SutCluster sutCluster) {
        return new Builder(sutCluster.cluster()).sut(sutCluster.sut());
    }

    public Cluster cluster() {
        return cluster;
    }

    public Optional<SystemUnderTest> sut() {
        return Optional.ofNullable(sut);
    }

    public List<Node> nodes() {
        return cluster.nodes();
    }

    public Node node(String name) {
        return cluster.node(name);
    }

    @Override
    public List<String> nodeNames() {
        return cluster.nodes().stream().map(Node::name).toList();
    }

    public boolean knowsLeaders() {
        return leaders != null;
    }

    public boolean knowsController() {
        return controller != null;
    }

    @Override
    public Optional<String> leaderOf(PartitionRef partition) {
        if (leaders == null) return Optional.empty();
        return leaders.leaderOf(cluster, partition.topic(), partition.partition()).map(Node::name);
    }

    @Override
    public Optional<String> activeController() {
        if (controller == null) return Optional.empty();
        return controller.activeController(cluster).map(Node::name);
    }

    public Optional<SegmentStorage> segmentStorage() {
        return Optional.ofNullable(storage);
    }

    /** Seeded; used only from the scheduler's thread. */
    public Random random() {
        return random;
    }

    public long seed() {
        return seed;
    }

    /** Nanoseconds on the run's time base (the history's, when built with a recorder). */
    public long now() {
        return nanoClock.getAsLong();
    }

    public FaultLog log() {
        return log;
    }

    public ClockHistory clocks() {
        return clocks;
    }

    /** How long a graceful stop waits before SIGKILL: the SUT's own grace unless overridden. */
    public Duration stopGrace() {
        return stopGrace;
    }

    public static final class Builder {
        private final Cluster cluster;
        private SystemUnderTest sut;
        private LeaderAware leaders;
        private ControllerAware controller;
        private SegmentStorage storage;
        private long seed = 0;
        private LongSupplier nanoClock;
        private FaultLog log = FaultLog.NONE;
        private Duration stopGrace;

        private Builder(Cluster cluster) {
            this.cluster = cluster;
            long t0 = System.nanoTime();
            this.nanoClock = () -> System.nanoTime() - t0;
        }

        public Builder sut(SystemUnderTest sut) {
            this.sut = sut;
            return this;
        }

        /** Overrides (or supplies, for a cluster without a SUT) how leaders are found. */
        public Builder leaderAware(LeaderAware leaders) {
            this.leaders = leaders;
            return this;
        }

        public Builder controllerAware(ControllerAware controller) {
            this.controller = controller;
            return this;
        }

        public Builder segmentStorage(SegmentStorage storage) {
            this.storage = storage;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Records fault ops into the history and takes its time base. */
        public Builder recorder(HistoryRecorder recorder) {
            this.nanoClock = recorder::now;
            this.log = FaultLog.toHistory(recorder);
            return this;
        }

        public Builder log(FaultLog log) {
            this.log = log;
            return this;
        }

        /** Records into this log as well as the ones set so far (e.g. the history and a {@link FaultTimeline}). */
        public Builder alsoLog(FaultLog more) {
            FaultLog before = this.log;
            this.log = FaultLog.all(List.of(before, more));
            return this;
        }

        public Builder nanoClock(LongSupplier clock) {
            this.nanoClock = clock;
            return this;
        }

        public Builder stopGrace(Duration grace) {
            this.stopGrace = grace;
            return this;
        }

        public NemesisContext build() {
            return new NemesisContext(this);
        }
    }
}
