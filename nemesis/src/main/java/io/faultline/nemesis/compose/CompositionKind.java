package io.faultline.nemesis.compose;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The role-aware fault compositions, each generic over bugs: it names the roles a replicated log depends on (a
 * partition's leader and followers, the active controller, the group coordinator) and the kinds of trouble every such system must survive,
 * never a particular mistake. Each builds its steps from a seeded Random, so a plan is a pure function of the seed.
 * {@link #aims} are the abstract transitions it tends to cause (see {@code io.faultline.checker.observe.Transitions});
 * guided planning prefers compositions whose aims the coverage map has seen least.
 */
public enum CompositionKind {
    /** Leader cut off from every other node (clients still reach it), then killed before the cut heals. */
    ISOLATE_LEADER_THEN_KILL("isolate-leader-then-kill", List.of("leader-moved", "isr-shrink", "broker-fenced", "leader-returned")),
    /** A follower killed and left to fall behind; restarted; the leader killed while it still lags. */
    LAGGING_REPLICA_ELECTION("lagging-replica-election", List.of("isr-shrink-to-leader", "leader-moved-outside-isr", "leader-lost", "leader-elected")),
    /** A follower restarted and killed again while it catches up to rejoin the ISR. */
    CRASH_WHILE_CATCHING_UP("crash-while-catching-up", List.of("broker-fenced", "broker-unfenced", "isr-expand", "isr-full")),
    /** Sub-second partitions of one role, many times in a row. */
    FLAPPING_PARTITION("flapping-partition", List.of("controller-moved", "leader-moved", "isr-shrink", "metadata-unavailable")),
    /** Only the link between the leader and the active controller cut. */
    CUT_LEADER_FROM_CONTROLLER("cut-leader-from-controller", List.of("broker-fenced", "leader-moved", "leader-on-controller")),
    /** Followers cut from the leader only (they still reach each other and the controller). */
    CUT_FOLLOWERS_FROM_LEADER("cut-followers-from-leader", List.of("isr-shrink", "isr-shrink-to-leader", "isr-expand")),
    /** The leader frozen for longer than the broker session, then thawed. */
    PAUSE_LEADER_PAST_SESSION("pause-leader-past-session", List.of("broker-fenced", "leader-moved", "broker-unfenced", "leader-returned")),
    /** The leader's clock skewed and its links slowed, then it is killed or cut off. */
    SKEWED_SLOW_LEADER("skewed-slow-leader", List.of("isr-shrink", "leader-moved", "controller-moved")),
    /**
     * Several nodes restarted one after another (followers and leader in a drawn order): cleanly stopped and started,
     * as an operator's rolling restart, or crashed (kill -9) and started.
     */
    ROLLING_RESTART("rolling-restart", List.of("controller-moved", "leader-moved", "broker-fenced", "isr-full")),
    /**
     * A node crashes with its last write torn (machine crash: the last page of the partition's newest segment never
     * reached the disk), restarts and recovers; then the other replicas restart one after another, so the recovered
     * log may have to serve or lead.
     */
    TORN_WRITE_CRASH("torn-write-crash", List.of("broker-fenced", "isr-shrink", "isr-expand", "leader-moved")),
    /**
     * The workload group's coordinator lost while members commit and rebalance: crashed and restarted, cut off past
     * the broker session and then killed (its successor loads the group while it may still answer), or frozen past
     * the session and thawed (a coordinator that wakes up believing it still is one).
     */
    COORDINATOR_FAILOVER("coordinator-failover", List.of("broker-fenced", "leader-moved", "broker-unfenced", "isr-shrink")),
    /**
     * Only replication cut (the port followers fetch on), so the node stays registered, votes and serves clients: a
     * gray failure a broker's liveness checks do not see. One of three: a follower cut off while leadership moves twice
     * (it comes back with a log whose last epoch is two elections old); the leader cut from its followers until the
     * ISR is the leader alone, then healed or the leader killed while it is the only in-sync replica; or the leader cut
     * and killed at once, so it restarts with a tail nobody copied and stays away through a second election.
     */
    CUT_REPLICATION_ONLY("cut-replication-only", List.of("isr-shrink", "isr-shrink-to-leader", "leader-moved", "leader-elected", "isr-full")),
    /**
     * Two roles fail together: the partition's leader cut off from every node and, while requests to it still time out
     * (work that needs it half done: acknowledgements, transaction markers, offset commits), the coordinator killed;
     * healed, then the coordinator started. Its successor takes over work the first one left half done.
     */
    CUT_LEADER_KILL_COORDINATOR("cut-leader-kill-coordinator", List.of("broker-fenced", "leader-moved", "leader-lost", "leader-returned")),
    /**
     * The replica set changed by an operator while the workload writes, through the Admin API: a follower removed (its
     * log deleted) and added back (it copies the log from its start), the leader possibly killed while the new replica
     * catches up; or leadership handed over live by a preferred-leader election and handed back.
     */
    REPLICA_SET_CHURN("replica-set-churn", List.of("leader-moved", "leader-returned", "isr-shrink", "isr-expand", "isr-full")),
    /**
     * One node away for longer than failover needs (the leader, the active controller, the group coordinator or a
     * follower; crashed, cleanly stopped or frozen) while the others serve on, then back. Every other composition
     * brings its nodes back within seconds, before a broker that cannot fail over is stuck for long; here nothing
     * else goes on (no clock skew is added), so the failover check judges whether every partition took writes again.
     */
    MINORITY_OUTAGE("minority-outage", List.of("broker-fenced", "leader-moved", "isr-shrink", "broker-unfenced"));

    private final String id;
    private final List<String> aims;

    CompositionKind(String id, List<String> aims) {
        this.id = id;
        this.aims = List.copyOf(aims);
    }

    public String id() {
        return id;
    }

    public List<String> aims() {
        return aims;
    }

    /** The kind with this id; an unknown one is a one-line error listing the known ids. */
    public static CompositionKind of(String id) {
        for (CompositionKind k : values()) if (k.id.equals(id)) return k;
        throw new IllegalArgumentException("unknown composition " + id + "; known: "
                + String.join(", ", java.util.Arrays.stream(values()).map(CompositionKind::id).toList()));
    }

    /** What shapes the steps: hold times, the broker session, and which fault kinds the run has set up. */
    public record Shape(long holdMillis, long sessionTimeoutMillis, boolean clock, boolean links, boolean disk,
                        boolean membership) {
        public Shape {
            if (holdMillis < 100) throw new IllegalArgumentException("hold must be at least 100 ms");
        }

        /** Without membership changes (replica-set-churn is not possible). */
        public Shape(long holdMillis, long sessionTimeoutMillis, boolean clock, boolean links, boolean disk) {
            this(holdMillis, sessionTimeoutMillis, clock, links, disk, false);
        }

        /** Without disk faults (torn-write-crash is not possible) or membership changes. */
        public Shape(long holdMillis, long sessionTimeoutMillis, boolean clock, boolean links) {
            this(holdMillis, sessionTimeoutMillis, clock, links, false, false);
        }

        /** About one hold: uniform in [hold/2, 3·hold/2). */
        long hold(Random r) {
            return holdMillis / 2 + (long) (r.nextDouble() * holdMillis);
        }
    }

    /** Whether this kind can run with what the run has set up (skewed-slow-leader needs clocks or links, torn-write-crash disk faults). */
    public boolean possibleWith(Shape shape) {
        if (this == TORN_WRITE_CRASH) return shape.disk();
        if (this == REPLICA_SET_CHURN) return shape.membership();
        return this != SKEWED_SLOW_LEADER || shape.clock() || shape.links();
    }

    /** The steps of one composition of this kind. */
    public List<Step> steps(Random r, Shape s) {
        List<Step> out = new ArrayList<>();
        switch (this) {
            case ISOLATE_LEADER_THEN_KILL -> {
                out.add(new Step.Isolate(Role.LEADER));
                out.add(new Step.Wait(s.hold(r)));
                out.add(new Step.Kill(Role.LEADER));
                out.add(new Step.Wait(between(r, 200, 2000)));
                out.add(new Step.Heal());
                out.add(new Step.Wait(s.hold(r)));
                out.add(new Step.Start(Role.LEADER));
            }
            case LAGGING_REPLICA_ELECTION -> {
                Role follower = r.nextBoolean() ? Role.FOLLOWER_1 : Role.FOLLOWER_2;
                out.add(new Step.Kill(follower));
                out.add(new Step.Wait(between(r, 4000, 12000))); // writes go on: it falls behind, the ISR drops it
                out.add(new Step.Start(follower));
                out.add(new Step.Wait(between(r, 100, 2000))); // it is catching up, not yet in sync
                out.add(new Step.Kill(Role.LEADER));
                out.add(new Step.Wait(s.hold(r)));
                out.add(new Step.Start(Role.LEADER));
            }
            case CRASH_WHILE_CATCHING_UP -> {
                Role follower = r.nextBoolean() ? Role.FOLLOWER_1 : Role.FOLLOWER_2;
                out.add(new Step.Kill(follower));
                out.add(new Step.Wait(s.hold(r)));
                int rounds = 1 + r.nextInt(2);
                for (int i = 0; i < rounds; i++) {
                    out.add(new Step.Start(follower));
                    out.add(new Step.Wait(between(r, 300, 3000)));
                    out.add(new Step.Kill(follower));
                    out.add(new Step.Wait(between(r, 500, 2000)));
                }
                out.add(new Step.Start(follower));
            }
            case FLAPPING_PARTITION -> {
                Role target = List.of(Role.LEADER, Role.CONTROLLER, Role.FOLLOWER_1).get(r.nextInt(3));
                int flaps = 4 + r.nextInt(9);
                for (int i = 0; i < flaps; i++) {
                    out.add(new Step.Isolate(target));
                    out.add(new Step.Wait(between(r, 100, 900)));
                    out.add(new Step.Heal());
                    out.add(new Step.Wait(between(r, 100, 900)));
                }
            }
            case CUT_LEADER_FROM_CONTROLLER -> {
                out.add(new Step.Cut(List.of(Role.LEADER), List.of(Role.CONTROLLER)));
                out.add(new Step.Wait(s.hold(r) + s.sessionTimeoutMillis()));
                out.add(new Step.Heal());
            }
            case CUT_FOLLOWERS_FROM_LEADER -> {
                List<Role> followers = List.of(List.of(Role.FOLLOWERS), List.of(Role.FOLLOWER_1), List.of(Role.FOLLOWER_2)).get(r.nextInt(3));
                out.add(new Step.Cut(List.of(Role.LEADER), followers));
                out.add(new Step.Wait(s.hold(r) + s.hold(r)));
                out.add(new Step.Heal());
            }
            case PAUSE_LEADER_PAST_SESSION -> {
                out.add(new Step.Pause(Role.LEADER));
                out.add(new Step.Wait(s.sessionTimeoutMillis() + between(r, 500, 4000)));
                out.add(new Step.Resume(Role.LEADER));
            }
            case SKEWED_SLOW_LEADER -> {
                if (s.clock()) out.add(new Step.Skew(Role.LEADER, skew(r)));
                if (s.links()) out.add(new Step.SlowLinks(Role.LEADER, between(r, 50, 400)));
                out.add(new Step.Wait(s.hold(r)));
                if (r.nextBoolean()) {
                    out.add(new Step.Kill(Role.LEADER));
                    out.add(new Step.Wait(s.hold(r)));
                    out.add(new Step.Start(Role.LEADER));
                } else {
                    out.add(new Step.Isolate(Role.LEADER));
                    out.add(new Step.Wait(s.hold(r)));
                    out.add(new Step.Heal());
                }
                out.add(new Step.Wait(s.hold(r)));
                if (s.links()) out.add(new Step.HealLinks());
                if (s.clock()) out.add(new Step.ResetClocks());
            }
            case ROLLING_RESTART -> {
                List<Role> order = new ArrayList<>(List.of(Role.FOLLOWER_1, Role.FOLLOWER_2, Role.LEADER));
                Collections.shuffle(order, r);
                int count = 2 + r.nextInt(2);
                // half of them an operator's rolling restart (clean stops: the shutdown path, and a restart that
                // trusts what the shutdown wrote), half a crash of one node after another
                boolean clean = r.nextBoolean();
                for (Role role : order.subList(0, count)) {
                    out.add(clean ? new Step.Stop(role) : new Step.Kill(role));
                    out.add(new Step.Wait(between(r, 300, 3000)));
                    out.add(clean ? new Step.StartStopped(role) : new Step.Start(role));
                    out.add(new Step.Wait(between(r, 1000, 4000)));
                }
            }
            case COORDINATOR_FAILOVER -> {
                switch (r.nextInt(3)) {
                    case 0 -> {
                        out.add(new Step.Kill(Role.COORDINATOR));
                        out.add(new Step.Wait(s.hold(r)));
                        out.add(new Step.Start(Role.COORDINATOR));
                    }
                    case 1 -> {
                        out.add(new Step.Isolate(Role.COORDINATOR));
                        out.add(new Step.Wait(s.sessionTimeoutMillis() + s.hold(r)));
                        out.add(new Step.Kill(Role.COORDINATOR));
                        out.add(new Step.Wait(between(r, 200, 2000)));
                        out.add(new Step.Heal());
                        out.add(new Step.Wait(s.hold(r)));
                        out.add(new Step.Start(Role.COORDINATOR));
                    }
                    default -> {
                        out.add(new Step.Pause(Role.COORDINATOR));
                        out.add(new Step.Wait(s.sessionTimeoutMillis() + between(r, 500, 4000)));
                        out.add(new Step.Resume(Role.COORDINATOR));
                    }
                }
            }
            case CUT_REPLICATION_ONLY -> {
                long lagged = between(r, 6000, 10000); // past replica.lag.time.max.ms (5 s in these runs): out of the ISR
                int variant = r.nextInt(3);
                if (variant == 2) {
                    // the leader cut and killed before the ISR drops its followers: it restarts with a tail nobody
                    // copied, still cut, and stays away while leadership moves twice; healed, it must find where
                    // its last epoch ended two elections ago
                    out.add(new Step.CutReplication(List.of(Role.LEADER), List.of(Role.FOLLOWERS)));
                    out.add(new Step.Wait(between(r, 500, 3000)));
                    out.add(new Step.Kill(Role.LEADER));
                    out.add(new Step.Wait(between(r, 500, 2000)));
                    out.add(new Step.Start(Role.LEADER)); // the cut is put back as it starts
                    out.add(new Step.Wait(s.hold(r)));
                    out.add(new Step.Kill(Role.FOLLOWER_1)); // the new leader (first in replica order) dies
                    out.add(new Step.Wait(s.hold(r)));
                    out.add(new Step.Start(Role.FOLLOWER_1));
                    out.add(new Step.Wait(between(r, 1000, 3000)));
                    out.add(new Step.Heal());
                } else if (variant == 0) {
                    Role away = r.nextBoolean() ? Role.FOLLOWER_1 : Role.FOLLOWER_2;
                    Role other = away == Role.FOLLOWER_1 ? Role.FOLLOWER_2 : Role.FOLLOWER_1;
                    out.add(new Step.CutReplication(List.of(away), List.of(Role.LEADER, other)));
                    out.add(new Step.Wait(lagged));
                    out.add(new Step.Kill(Role.LEADER)); // the other follower takes over (the cut one still votes)
                    out.add(new Step.Wait(s.hold(r)));
                    out.add(new Step.Start(Role.LEADER));
                    out.add(new Step.Wait(between(r, 2000, 5000))); // it rejoins the ISR from the new leader
                    out.add(new Step.Kill(other)); // a second election while the cut follower is still away
                    out.add(new Step.Wait(s.hold(r)));
                    out.add(new Step.Start(other));
                    out.add(new Step.Wait(between(r, 1000, 3000)));
                    out.add(new Step.Heal());
                } else {
                    out.add(new Step.CutReplication(List.of(Role.LEADER), List.of(Role.FOLLOWERS)));
                    out.add(new Step.Wait(lagged));
                    if (r.nextBoolean()) {
                        out.add(new Step.Kill(Role.LEADER)); // the only in-sync replica gone
                        out.add(new Step.Wait(between(r, 1000, 4000)));
                        out.add(new Step.Heal());
                        out.add(new Step.Wait(s.hold(r)));
                        out.add(new Step.Start(Role.LEADER));
                    } else {
                        out.add(new Step.Heal());
                    }
                }
            }
            case CUT_LEADER_KILL_COORDINATOR -> {
                out.add(new Step.Isolate(Role.LEADER));
                out.add(new Step.Wait(between(r, 300, 2500)));
                out.add(new Step.Kill(Role.COORDINATOR));
                out.add(new Step.Wait(between(r, 1000, 3000)));
                out.add(new Step.Heal());
                out.add(new Step.Wait(s.hold(r)));
                out.add(new Step.Start(Role.COORDINATOR));
            }
            case REPLICA_SET_CHURN -> {
                long hold = s.hold(r);
                int shape = r.nextInt(3);
                if (shape == 2) {
                    // the leader's own replica removed, as an operator decommissioning its broker does: the controller
                    // must hand leadership to a target replica while the old leader is alive and taking writes
                    out.add(new Step.Reassign(List.of(Role.FOLLOWER_1, Role.FOLLOWER_2))); // its log is deleted
                    out.add(new Step.Wait(hold));
                    out.add(new Step.Reassign(List.of(Role.FOLLOWER_1, Role.FOLLOWER_2, Role.LEADER))); // back, empty
                } else if (shape == 0) {
                    Role removed = r.nextBoolean() ? Role.FOLLOWER_1 : Role.FOLLOWER_2;
                    Role kept = removed == Role.FOLLOWER_1 ? Role.FOLLOWER_2 : Role.FOLLOWER_1;
                    out.add(new Step.Reassign(List.of(Role.LEADER, kept))); // its log is deleted
                    out.add(new Step.Wait(hold));
                    out.add(new Step.Reassign(List.of(Role.LEADER, Role.FOLLOWER_1, Role.FOLLOWER_2))); // back, empty
                    out.add(new Step.Wait(between(r, 300, 3000)));
                    if (r.nextBoolean()) {
                        out.add(new Step.Kill(Role.LEADER)); // while the added replica still copies
                        out.add(new Step.Wait(s.hold(r)));
                        out.add(new Step.Start(Role.LEADER));
                    }
                } else {
                    Role next = r.nextBoolean() ? Role.FOLLOWER_1 : Role.FOLLOWER_2;
                    Role other = next == Role.FOLLOWER_1 ? Role.FOLLOWER_2 : Role.FOLLOWER_1;
                    out.add(new Step.Reassign(List.of(next, Role.LEADER, other)));
                    out.add(new Step.ElectPreferred()); // the leader steps down alive, mid-request
                    out.add(new Step.Wait(hold));
                    out.add(new Step.Reassign(List.of(Role.LEADER, Role.FOLLOWER_1, Role.FOLLOWER_2)));
                    out.add(new Step.ElectPreferred());
                }
            }
            case MINORITY_OUTAGE -> {
                Role target = List.of(Role.LEADER, Role.CONTROLLER, Role.COORDINATOR, Role.FOLLOWER_1).get(r.nextInt(4));
                long away = between(r, OUTAGE_MIN_MILLIS, OUTAGE_MAX_MILLIS);
                switch (r.nextInt(3)) {
                    case 0 -> {
                        out.add(new Step.Kill(target));
                        out.add(new Step.Wait(away));
                        out.add(new Step.Start(target));
                    }
                    case 1 -> {
                        out.add(new Step.Stop(target));
                        out.add(new Step.Wait(away));
                        out.add(new Step.StartStopped(target));
                    }
                    default -> {
                        out.add(new Step.Pause(target));
                        out.add(new Step.Wait(away));
                        out.add(new Step.Resume(target));
                    }
                }
            }
            case TORN_WRITE_CRASH -> {
                List<Role> order = new ArrayList<>(List.of(Role.FOLLOWER_1, Role.FOLLOWER_2, Role.LEADER));
                Collections.shuffle(order, r);
                Role torn = order.get(0);
                // a batch's header is 61 bytes: tears from inside the last record to across several small batches
                out.add(new Step.CrashTorn(torn, between(r, 8, 512)));
                out.add(new Step.Wait(s.hold(r))); // it recovers and catches up (or not)
                for (Role other : order.subList(1, order.size())) {
                    out.add(new Step.Kill(other));
                    out.add(new Step.Wait(between(r, 300, 3000)));
                    out.add(new Step.Start(other));
                    out.add(new Step.Wait(between(r, 1000, 4000)));
                }
            }
        }
        return out;
    }

    /**
     * How long a minority outage lasts: the failover check's 15 s bound plus 10–20 s judged (at a write every few
     * milliseconds per key, hundreds of writes).
     */
    static final long OUTAGE_MIN_MILLIS = 25_000, OUTAGE_MAX_MILLIS = 35_000;

    static long between(Random r, long lo, long hi) {
        return lo + (long) (r.nextDouble() * (hi - lo));
    }

    /** ± 100 ms .. ± 30 s, spread over powers of two. */
    static long skew(Random r) {
        long magnitude = Math.round(100 * Math.pow(2, r.nextDouble() * Math.log(300) / Math.log(2)));
        return r.nextBoolean() ? magnitude : -magnitude;
    }
}
