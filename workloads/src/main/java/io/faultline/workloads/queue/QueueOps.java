package io.faultline.workloads.queue;

import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Context;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Invocation;
import io.faultline.workloads.generator.Rng;
import io.faultline.workloads.generator.Step;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The queue workload's main generator (pure, seeded). It keeps {@code activeKeys} keys in play; a key that has
 * received {@code maxWritesPerKey} values retires and a fresh key takes its slot, as in Jepsen, so every run keeps
 * producing short, fully checkable logs. Values count up from 1 per key, hence are unique per key.
 *
 * <p>A thread whose process is new (at start, after a crash or any {@code info}) or whose keys went stale (a key
 * retired) first gets an assign/subscribe covering the active keys; otherwise ops are sends of 1..n micro-ops,
 * polls, occasional re-assigns and, if enabled, crashes.
 */
public record QueueOps(Options options, Rng rng, int[] activeKeys, int[] writes, int nextKey, boolean[] needsAssign,
                       byte[] modes) implements Gen {
    /**
     * A worker's consumer mode with the consumer mix: drawn at its client's first keys op and kept until the client is
     * lost (a crash or any info), so later keys ops re-subscribe (or re-assign) in the same mode. Redrawn at every keys
     * op, half the workers moved between the group and manual assignment several times a second (each move a leave or a
     * join), and the group was always rebalancing: measured 7 December 2026 on a nightly run of Kafka 4.4, no poll of
     * a subscribed worker returned a record in 120 s, so nothing of the group's offsets or rebalances was judged.
     */
    static final byte UNDECIDED = 0, GROUP = 1, MANUAL = 2;

    public enum KeyDistribution { UNIFORM, EXPONENTIAL }

    /**
     * @param activeKeys      keys in play at any time
     * @param maxWritesPerKey values sent to a key before it retires
     * @param distribution    how sends pick among active keys (EXPONENTIAL: slot i has weight 2^-i)
     * @param maxSendMops     each send op carries 1..this many [key value] micro-ops
     * @param sendFraction    share of sends among sends and polls
     * @param reassignChance  chance that an op is a (re-)assign/subscribe instead
     * @param crashChance     chance that an op is a client crash (close and reopen)
     * @param subscribe       use subscribe (consumer group) rather than assign
     * @param assignShare     when subscribing, the share of (re-)assign ops that assign manually instead, so consumers
     *                        move between the group and manual assignment (each move is a rebalance); 0: never
     * @param tailShare       the share of manual assigns that start at the partitions' ends (tail readers: they read
     *                        records moments after they are written, where a broker serving what it has not yet
     *                        committed shows); 0: never
     * @param readers         how many threads (the first ones) only poll, never send: a send waits on a partition
     *                        that cannot commit, so workers that also send soon all wait there, and nothing reads
     *                        while a fault lasts; readers go on reading through it
     * @param bulkShare       the share of send ops that are bulk sends (see {@link #withBulkShare}); 0: never
     */
    public record Options(int activeKeys, int maxWritesPerKey, KeyDistribution distribution, int maxSendMops,
                          double sendFraction, double reassignChance, double crashChance, boolean subscribe,
                          double assignShare, double tailShare, int readers, double bulkShare) {
        /** A bulk send carries this many records, all to one key (the key's successor once it retires midway). */
        public static final int BULK_MIN = 100, BULK_MAX = 400;

        public Options {
            if (activeKeys < 1 || maxWritesPerKey < 1 || maxSendMops < 1) {
                throw new IllegalArgumentException("activeKeys, maxWritesPerKey and maxSendMops must be ≥ 1");
            }
            if (assignShare < 0 || assignShare > 1) throw new IllegalArgumentException("assignShare must be in [0, 1]");
            if (tailShare < 0 || tailShare > 1) throw new IllegalArgumentException("tailShare must be in [0, 1]");
            if (readers < 0) throw new IllegalArgumentException("readers must be at least 0");
            if (bulkShare < 0 || bulkShare > 1) throw new IllegalArgumentException("bulkShare must be in [0, 1]");
        }

        public Options(int activeKeys, int maxWritesPerKey, KeyDistribution distribution, int maxSendMops,
                       double sendFraction, double reassignChance, double crashChance, boolean subscribe) {
            this(activeKeys, maxWritesPerKey, distribution, maxSendMops, sendFraction, reassignChance, crashChance,
                    subscribe, 0, 0, 0, 0);
        }

        /** The first {@code n} threads only poll (at least one thread always sends: see {@link QueueOps#create}). */
        public Options withReaders(int n) {
            return new Options(activeKeys, maxWritesPerKey, distribution, maxSendMops, sendFraction, reassignChance,
                    crashChance, subscribe, assignShare, tailShare, n, bulkShare);
        }

        /**
         * This share of send ops are bulk sends: {@link #BULK_MIN}..{@link #BULK_MAX} records to one key in one op, so
         * a run also carries bursts of traffic (pipelines of many requests, batches filling to their size, segments
         * rolling by size, follower and consumer fetches cut at their byte limits), not only ops of a few records.
         */
        public Options withBulkShare(double share) {
            return new Options(activeKeys, maxWritesPerKey, distribution, maxSendMops, sendFraction, reassignChance,
                    crashChance, subscribe, assignShare, tailShare, readers, share);
        }

        /** Manual assigns that start at the partitions' ends in this share of them. */
        public Options withTailShare(double share) {
            return new Options(activeKeys, maxWritesPerKey, distribution, maxSendMops, sendFraction, reassignChance,
                    crashChance, subscribe, assignShare, share, readers, bulkShare);
        }

        public static Options defaults() {
            return new Options(8, 1000, KeyDistribution.EXPONENTIAL, 3, 0.5, 1.0 / 64, 0, false);
        }

        /** Subscribing consumers that also assign manually in this share of their keys ops. */
        public Options withAssignShare(double share) {
            return new Options(activeKeys, maxWritesPerKey, distribution, maxSendMops, sendFraction, reassignChance,
                    crashChance, subscribe, share, tailShare, readers, bulkShare);
        }

        public Options withKeys(int active, int maxWrites, KeyDistribution dist) {
            return new Options(active, maxWrites, dist, maxSendMops, sendFraction, reassignChance, crashChance,
                    subscribe, assignShare, tailShare, readers, bulkShare);
        }

        public Options withMix(int maxMops, double sends, double reassign, double crash) {
            return new Options(activeKeys, maxWritesPerKey, distribution, maxMops, sends, reassign, crash,
                    subscribe, assignShare, tailShare, readers, bulkShare);
        }

        public Options withSubscribe(boolean sub) {
            return new Options(activeKeys, maxWritesPerKey, distribution, maxSendMops, sendFraction, reassignChance,
                    crashChance, sub, assignShare, tailShare, readers, bulkShare);
        }
    }

    public static QueueOps create(Options options, long seed, int threads) {
        int[] keys = new int[options.activeKeys()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i;
        }
        boolean[] needs = new boolean[threads];
        Arrays.fill(needs, true);
        return new QueueOps(options, Rng.seeded(seed), keys, new int[keys.length], keys.length, needs, new byte[threads]);
    }

    @Override
    public Step next(Context ctx) {
        int t = ctx.anyFreeThread();
        if (t < 0) {
            return Step.PENDING;
        }
        if (t < needsAssign.length && needsAssign[t]) {
            boolean[] needs = needsAssign.clone();
            needs[t] = false;
            Rng after = afterKeysOp(rng); // no draw without the mix: older seeds' streams stay
            Invocation op = keysOp(t, ctx.time(), rng);
            return Step.emit(op, new QueueOps(options, after, activeKeys, writes, nextKey, needs, withMode(t, op)));
        }
        Rng r = rng;
        double u = r.unit();
        r = r.advance();
        if (u < options.crashChance()) {
            return Step.emit(new Invocation(t, ctx.time(), Op.CRASH, OpValue.None.INSTANCE),
                    new QueueOps(options, r, activeKeys, writes, nextKey, needsAssign, modes));
        }
        if (u < options.crashChance() + options.reassignChance()) {
            Rng after = afterKeysOp(r);
            Invocation op = keysOp(t, ctx.time(), r);
            return Step.emit(op, new QueueOps(options, after, activeKeys, writes, nextKey, needsAssign, withMode(t, op)));
        }
        double v = r.unit();
        r = r.advance();
        if (v >= options.sendFraction() || isReader(t)) {
            return Step.emit(new Invocation(t, ctx.time(), Op.POLL, OpValue.Txn.of(MicroOp.Poll.invoke())),
                    new QueueOps(options, r, activeKeys, writes, nextKey, needsAssign, modes));
        }
        int n = 1 + r.below(options.maxSendMops());
        r = r.advance();
        int bulkSlot = -1;
        if (options.bulkShare() > 0) { // no draw without bulk sends: older seeds' streams stay
            double b = r.unit();
            r = r.advance();
            if (b < options.bulkShare()) {
                n = Options.BULK_MIN + r.below(Options.BULK_MAX - Options.BULK_MIN + 1);
                r = r.advance();
                bulkSlot = pickSlot(r.unit());
                r = r.advance();
            }
        }
        int[] keys = activeKeys.clone();
        int[] w = writes.clone();
        int next = nextKey;
        boolean retired = false;
        List<MicroOp> mops = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int slot = bulkSlot;
            if (slot < 0) {
                slot = pickSlot(r.unit());
                r = r.advance();
            }
            w[slot]++;
            mops.add(MicroOp.Send.invoke(keys[slot], w[slot]));
            if (w[slot] >= options.maxWritesPerKey()) {
                keys[slot] = next++; // retire: a fresh key takes the slot, counting from 1 again
                w[slot] = 0;
                retired = true;
            }
        }
        boolean[] needs = needsAssign;
        if (retired) {
            needs = new boolean[needsAssign.length];
            Arrays.fill(needs, true); // every consumer should follow the new key set
        }
        return Step.emit(new Invocation(t, ctx.time(), Op.SEND, new OpValue.Txn(mops)),
                new QueueOps(options, r, keys, w, next, needs, modes));
    }

    @Override
    public Gen update(Context ctx, Op event) {
        int t = ctx.threadOf(event.process());
        boolean lostClient = event.type() == OpType.INFO;
        boolean assignFailed = event.type() == OpType.FAIL && event.value() instanceof OpValue.Keys;
        if (t < 0 || t >= needsAssign.length || !(lostClient || assignFailed) || needsAssign[t]) {
            return this;
        }
        boolean[] needs = needsAssign.clone();
        needs[t] = true;
        byte[] m = modes;
        if (lostClient && t < modes.length && modes[t] != UNDECIDED) { // a new client draws its mode again
            m = modes.clone();
            m[t] = UNDECIDED;
        }
        return new QueueOps(options, rng, activeKeys, writes, nextKey, needs, m);
    }

    /** Whether thread t only polls; with as many readers as threads, the last thread still sends. */
    private boolean isReader(int t) {
        return t < Math.min(options.readers(), needsAssign.length - 1);
    }

    private boolean mixesConsumers() {
        return options.subscribe() && options.assignShare() > 0;
    }

    /** The stream after a keys op: one draw for the consumer mix, one for tail readers, each only when on. */
    private Rng afterKeysOp(Rng r) {
        Rng after = mixesConsumers() ? r.advance() : r;
        return options.tailShare() > 0 ? after.advance() : after;
    }

    /**
     * An assign or subscribe of the active keys; with the consumer mix, {@code r}'s next draw decides which, and
     * with tail readers the draw after it whether an assign starts at the ends.
     */
    private Invocation keysOp(int thread, long time, Rng r) {
        List<Integer> keys = new ArrayList<>();
        for (int k : activeKeys) {
            keys.add(k);
        }
        keys.sort(null);
        boolean drawn = options.subscribe() && !(mixesConsumers() && r.unit() < options.assignShare());
        byte mode = thread < modes.length ? modes[thread] : UNDECIDED;
        boolean subscribe = mixesConsumers() && mode != UNDECIDED ? mode == GROUP : drawn;
        if (subscribe) return new Invocation(thread, time, Op.SUBSCRIBE, new OpValue.Keys(keys, false));
        // drawn only when tail readers are on, so mixes without them keep their sequences
        Rng second = mixesConsumers() ? r.advance() : r;
        boolean tail = options.tailShare() > 0 && second.unit() < options.tailShare();
        return new Invocation(thread, time, Op.ASSIGN, tail ? OpValue.Keys.tail(keys) : new OpValue.Keys(keys, false));
    }

    /** The modes after keys op {@code op} of thread {@code t} (decided by it when undecided). */
    private byte[] withMode(int t, Invocation op) {
        if (!mixesConsumers() || t >= modes.length || modes[t] != UNDECIDED) return modes;
        byte[] m = modes.clone();
        m[t] = Op.SUBSCRIBE.equals(op.f()) ? GROUP : MANUAL;
        return m;
    }

    /** Maps a uniform draw to a key slot under the configured distribution. */
    int pickSlot(double u) {
        int n = activeKeys.length;
        if (options.distribution() == KeyDistribution.UNIFORM) {
            return Math.min(n - 1, (int) (u * n));
        }
        // Truncated geometric: P(i) ∝ 2^-i for i in [0, n). Inverse CDF.
        double mass = 1 - Math.pow(2, -n);
        int i = (int) Math.floor(-Math.log(1 - u * mass) / Math.log(2));
        return Math.max(0, Math.min(n - 1, i));
    }
}
