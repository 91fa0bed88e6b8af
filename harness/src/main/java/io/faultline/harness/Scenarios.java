package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.harness.Scenario.Expectation;
import io.faultline.harness.Scenario.Role;
import io.faultline.harness.Scenario.Settings;
import io.faultline.harness.Scenario.Step;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The named scenarios. Scripts are written for a 3-node cluster whose three nodes are also the KRaft quorum: a cut
 * that leaves the leader alone also leaves it without a controller, so scenarios that need the leader to keep its
 * controller while its follower is away use rf=2 and cut the follower off instead (the third node keeps the
 * quorum with the leader).
 */
final class Scenarios {
    private Scenarios() {}

    static final String KAFKA = "apache-kafka", BROKER = "broker-impl", BROKER_HW = "broker-impl/high-watermark";

    private static Step waitS(int seconds) {
        return new Step.Wait(Duration.ofSeconds(seconds));
    }

    private static Step waitMs(int millis) {
        return new Step.Wait(Duration.ofMillis(millis));
    }

    private static Step awaitIsr(Role role) {
        return new Step.AwaitIsr(role, Duration.ofSeconds(60));
    }

    private static Step awaitLeader(Role role) {
        return new Step.AwaitLeader(role, Duration.ofSeconds(60));
    }

    private static final Set<Role> LEADER = Set.of(Role.LEADER), FOLLOWERS = Set.of(Role.FOLLOWERS),
            REST = Set.of(Role.FOLLOWERS, Role.OTHERS), NOT_FOLLOWERS = Set.of(Role.LEADER, Role.OTHERS);

    /**
     * Power loss forgets about the last second of writes: the broker fsyncs its logs once a second (Kafka checks
     * log.flush.interval.ms only every log.flush.scheduler.interval.ms, by default never; broker-impl ignores it).
     */
    static final Map<String, String> FLUSH_EVERY_SECOND = Map.of("log.flush.interval.ms", "1000",
            "log.flush.scheduler.interval.ms", "1000");

    /**
     * KIP-101 scenario 2 needs the returning leader to lose more than the follower's high-watermark checkpoint lags
     * behind (about a second): it fsyncs every 5 s, so it loses up to 5 s.
     */
    static final Map<String, String> FLUSH_EVERY_5_SECONDS = Map.of("log.flush.interval.ms", "5000",
            "log.flush.scheduler.interval.ms", "1000");

    /**
     * Seconds a leader alone in the ISR runs before the next fault: the cut follower still counts as caught up for
     * replica.lag.time.max.ms (5 s) after its last fetch, so the high watermark follows the leader alone only then.
     */
    private static final int SOLO_SECONDS = 10;

    /** acks=all, rf=3, min.insync.replicas=2, unclean off, idempotent producers: nothing acknowledged may be lost. */
    private static final Settings SAFE = new Settings(3, 3, "all", true, 2, false);

    /**
     * The leader drops a lagging follower from the ISR after 1 s, while the controller fences a broker only after
     * 6 s without heartbeats: a follower cut from the leader alone is out of sync but still registered.
     */
    static final Map<String, String> SLOW_FENCING = Map.of("replica.lag.time.max.ms", "1000",
            "broker.session.timeout.ms", "6000");

    /**
     * The controller fences a silent broker after 17 s, longer than the producers' delivery timeout (15 s): a cut-off
     * leader keeps taking writes that expire unacknowledged, so the producers move on to new values and the next
     * leader's log holds other values at those offsets. With a fast fencing the producers retry the same batches to
     * the next leader in the same order, and the deposed leader's tail equals the new log (no divergence to see).
     */
    static final Map<String, String> SLOW_LEADER_FENCING = Map.of("broker.session.timeout.ms", "17000");

    /**
     * As {@link #SLOW_LEADER_FENCING}, whichever node hosts the active controller: a node fenced by session expiry
     * last heartbeated up to one interval before the cut (session − interval = 17.5 s), and a cut-off leader that was
     * itself the active controller is fenced by its successor after the grace of a lost connection, two intervals
     * (17 s; with the default 2 s interval it was fenced 3 s after the cut, the producers retried its batches to the
     * new leader in order, and the run saw no divergence). Both outlast the producers' 15 s delivery timeout.
     */
    static final Map<String, String> SLOWER_LEADER_FENCING = Map.of("broker.session.timeout.ms", "26000",
            "broker.heartbeat.interval.ms", "8500");

    /**
     * Smallest producer batches. A follower that keeps a divergent tail resumes fetching at its own log end; when the
     * leader's batch holding that offset starts below it, the append is not contiguous and replication of the
     * partition stops (as in Kafka), so the tail is never read. With batch.size=1 a batch holds one of the workload's
     * records, or two when a second one is sent before the first leaves (kafka-clients sizes a batch by an upper
     * bound of its first record, leaving about 14 bytes): far more offsets are batch starts than with the default.
     * One send per op would make every record its own batch; the queue workload does not offer that per scenario yet.
     */
    static final Map<String, String> ONE_RECORD_BATCHES = Map.of("batch.size", "1");

    private static final Map<String, Expectation> DIVERGENCE_EXPECT = Map.of(
            KAFKA, valid("the tail the leader's disk forgot was never acknowledged (the ISR still held the crashed "
                    + "follower, so acks=all waited), and the old follower truncates to the new leader's epoch end"),
            BROKER, valid("as Kafka: leader-epoch truncation, no acknowledged write lost, no divergence"),
            BROKER_HW, new Expectation(Verdict.INVALID, "divergence", "the old follower truncates to its high watermark "
                    + "and keeps entries the new leader never had; once it leads, readers see other values at the same offsets"));

    /**
     * Both unclean elections of fast-leader-failover lose what only the replica left behind had; a release with
     * KIP-279 (2.0) still makes the returning follower truncate to where the epochs it shares with the leader end.
     */
    private static final Expectation LOST_NOT_DIVERGED = new Expectation(Verdict.INVALID, "lost-write",
            "each unclean election loses what only the other replica had, but the returning follower asks where its "
                    + "epoch ended on the leader and gets the last common epoch's end (KIP-279): the replicas agree",
            Set.of(io.faultline.results.ReplicaAgreement.DIVERGENCE));

    /**
     * Before KIP-279 the leader answers a follower's question about an epoch it never had with the start of its next
     * epoch, so the follower keeps the second epoch's entries below it: the replicas' logs differ below their high
     * watermarks.
     */
    private static final Expectation DIVERGED_BEFORE_KIP_279 = new Expectation(Verdict.INVALID, io.faultline.results.ReplicaAgreement.DIVERGENCE,
            "before KIP-279 (2.0) the leader answers the follower's question about the second epoch, which it never had, "
                    + "with the start of its third: the follower keeps the second epoch's entries and the logs differ");

    /**
     * kip-101-failover's script. The fetch cut drops what the replicas send from their replication port at the
     * fetcher's end, so the leader has seen the second follower's last fetch (which advances its high watermark once
     * the first follower passes it, acknowledging writes) but the second follower never gets the reply that would tell
     * it so: its high watermark stays a fetch round behind what was acknowledged. The second follower stops fetching
     * just before the leader dies, so the first follower's log reaches at least as far as the second's: a first
     * follower behind it would have appended (as a short-lived leader) where the second has the old leader's entries,
     * a divergence that only KIP-279 (2.0) fixes, not the loss this scenario is about. The old leader cannot fetch
     * from the first follower either, so once restarted it stays out of that follower's ISR and cannot be elected in
     * the second follower's place. The leader is restarted at once: in ZooKeeper mode the ensemble runs on the same
     * three nodes and needs its server back before the first follower dies (its broker waits for its old
     * registration to expire, so the controller still sees it die). The first follower must die within
     * replica.lag.time.max.ms (5 s) of leading, while the second is still in its ISR: it is killed as soon as the
     * metadata names it leader.
     */
    private static final List<Step> KIP_101_FAILOVER_SCRIPT = List.of(waitS(8),
            new Step.CutFetches(Map.of(Role.FOLLOWER_2, Set.of(Role.LEADER, Role.FOLLOWER_1), Role.LEADER, Set.of(Role.FOLLOWER_1))),
            waitMs(200), new Step.Kill(Role.LEADER), new Step.Start(Role.LEADER), awaitLeader(Role.FOLLOWER_1),
            new Step.Kill(Role.FOLLOWER_1), new Step.Heal(), awaitLeader(Role.FOLLOWER_2), waitS(4),
            new Step.Start(Role.FOLLOWER_1), waitS(8));

    static final List<Scenario> ALL = List.of(
            new Scenario("acks-1-failover",
                    "acks=1: the leader is cut from every other node while it acknowledges writes nobody fetches, "
                            + "killed, another replica takes over, the old leader restarts and truncates",
                    new Settings(3, 3, "1", false, 2, false),
                    List.of(waitS(8), new Step.Cut(LEADER, REST), waitS(6), new Step.Kill(Role.LEADER), new Step.Heal(),
                            waitS(8), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, lost("acks=1 acknowledges a write once the leader has it; the leader dies before followers fetch it"),
                            BROKER, lost("acks=1 acknowledges a write once the leader has it; the leader dies before followers fetch it")),
                    ""),
            new Scenario("unclean-election",
                    "unclean on, rf=2: the follower is cut off and fenced, the ISR shrinks to the leader, which acknowledges "
                            + "writes alone (min.insync.replicas=1) and is killed; the out-of-sync follower returns and is "
                            + "elected uncleanly; the old leader restarts and truncates",
                    new Settings(3, 2, "all", false, 1, true),
                    List.of(waitS(8), new Step.Cut(FOLLOWERS, NOT_FOLLOWERS), awaitIsr(Role.LEADER), waitS(5), new Step.Kill(Role.LEADER),
                            new Step.Heal(), waitS(12), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, lost("unclean election makes an out-of-sync replica leader: what only the dead leader had is gone"),
                            BROKER, lost("unclean election makes an out-of-sync replica leader: what only the dead leader had is gone")),
                    ""),
            new Scenario("min-isr-1",
                    "acks=all with min.insync.replicas=1 (rf=2): the follower is cut off, the ISR shrinks to the leader, "
                            + "which acknowledges writes alone; then the leader loses power (its disk forgets what was not "
                            + "fsynced: the broker fsyncs once a second) while its follower is out of sync; it returns as the "
                            + "only in-sync replica without its last writes",
                    new Settings(3, 2, "all", false, 1, false, FLUSH_EVERY_SECOND),
                    List.of(waitS(8), new Step.Cut(FOLLOWERS, NOT_FOLLOWERS), awaitIsr(Role.LEADER), waitS(5), new Step.PowerOff(LEADER),
                            new Step.Heal(), waitS(10), new Step.PowerOn(Role.LEADER), awaitLeader(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, lost("min.insync.replicas=1 lets the leader alone acknowledge: when it dies with its disk, "
                                    + "no other replica has those writes (with min.insync.replicas=2 the follower would)"),
                            BROKER, lost("as Kafka: the only in-sync replica lost its unsynced tail")),
                    "the power-loss filesystem (FUSE on the host)"),
            new Scenario("kip-101-loss",
                    "KIP-101 scenario 1 (rf=2, min.insync.replicas=1): leader→follower traffic is cut right after acks, the "
                            + "follower is killed and restarted quickly (still in the ISR, truncating to its high watermark), "
                            + "then the leader is killed and the follower elected",
                    new Settings(3, 2, "all", false, 1, false),
                    List.of(waitS(8), new Step.Cut(LEADER, FOLLOWERS), new Step.Kill(Role.FOLLOWERS), new Step.Start(Role.FOLLOWERS),
                            new Step.Kill(Role.LEADER), new Step.Heal(), waitS(10), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, valid("leader-epoch truncation (KIP-101): the restarted follower keeps what it fetched"),
                            KAFKA + ":0.10.2.1", lost("before KIP-101 (0.11) a restarted follower truncates to its high watermark and is then elected: the acked tail is gone"),
                            KAFKA + ":0.11.0.3", valid("leader-epoch truncation (KIP-101, new in 0.11): the restarted follower keeps what it fetched"),
                            BROKER, valid("leader-epoch truncation: the restarted follower keeps what it fetched"),
                            BROKER_HW, lost("a restarted follower truncates to its high watermark and is then elected: the acked tail is gone")),
                    "--sut broker-impl --truncation high-watermark"),
            divergence(true),
            new Scenario("kip-101-failover",
                    "KIP-101's loss through leader changes, without a follower restart (rf=3, acks=all, "
                            + "min.insync.replicas=2, unclean off): the second follower's fetches are cut (its connections "
                            + "to the other replicas' replication port; ZooKeeper, the KRaft quorum and clients pass), and "
                            + "the leader's to the first follower; at once the leader is killed and restarted; "
                            + "the controller elects the first follower and the second, still in the ISR, follows it, which "
                            + "before KIP-101 truncates its log to its high watermark, a fetch round behind what the leader "
                            + "acknowledged; the first follower is killed before it drops the second from the ISR, the "
                            + "second is elected and leads without what it cut",
                    new Settings(3, 3, "all", false, 2, false),
                    KIP_101_FAILOVER_SCRIPT,
                    Map.of(KAFKA, valid("a follower truncates only where the new leader says its epoch ended (KIP-101), "
                                    + "which it cannot ask while cut off, so it leads with everything acknowledged"),
                            KAFKA + ":0.10.2.1", lost("before KIP-101 (0.11) a follower truncates to its high watermark on "
                                    + "every leader change; it stays in the ISR and is elected without the acknowledged tail"),
                            KAFKA + ":0.11.0.3", valid("leader epochs (KIP-101, new in 0.11): the follower waits for the "
                                    + "leader's answer before it truncates, and leads with everything acknowledged"),
                            BROKER, valid("leader-epoch truncation: the follower leads with everything acknowledged")),
                    ""),
            new Scenario("fast-leader-failover",
                    "KIP-279's fast leader fail-over (rf=2, acks=all, min.insync.replicas=1, unclean on): the follower is "
                            + "cut from the leader and the ISR shrinks to the leader, which appends alone; the leader is "
                            + "killed and the follower elected (new epoch, other values at the same offsets); the follower "
                            + "is killed and the old leader started, elected again in a third epoch without ever having "
                            + "followed the second; the follower returns and must truncate everything of the second epoch",
                    new Settings(3, 2, "all", false, 1, true),
                    List.of(waitS(8), new Step.Cut(FOLLOWERS, LEADER), awaitIsr(Role.LEADER), waitS(3),
                            new Step.Kill(Role.LEADER), awaitLeader(Role.FOLLOWERS), waitS(6), new Step.Kill(Role.FOLLOWERS),
                            new Step.Start(Role.LEADER), awaitLeader(Role.LEADER), waitS(4), new Step.Heal(),
                            new Step.Start(Role.FOLLOWERS), new Step.AwaitInIsr(Role.FOLLOWERS, Duration.ofSeconds(60)), waitS(8)),
                    Map.of(KAFKA, LOST_NOT_DIVERGED,
                            KAFKA + ":0.11.0.3", DIVERGED_BEFORE_KIP_279,
                            KAFKA + ":2.0.1", LOST_NOT_DIVERGED,
                            KAFKA + ":2.1.1", LOST_NOT_DIVERGED,
                            BROKER, LOST_NOT_DIVERGED),
                    ""),
            // The scenarios below run with safe settings: both systems should stay valid. Each is the deterministic
            // fault mix of one or more of broker-impl's seeded bugs (`bugs`, SeededBugCatalog), and the clean broker
            // under it is that mix's false-alarm control.
            new Scenario("isolated-leader",
                    "acks=all, rf=3, min.insync.replicas=2: the leader is cut from every other node while clients still "
                            + "reach it, then killed; another replica takes over; the old leader restarts and truncates. "
                            + "A correct leader acknowledges nothing while cut off (no follower fetches)",
                    SAFE,
                    List.of(waitS(8), new Step.Cut(LEADER, REST), waitS(6), new Step.Kill(Role.LEADER), new Step.Heal(),
                            waitS(8), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, valid("acks=all waits for the followers, which the isolated leader cannot reach"),
                            BROKER, valid("as Kafka: the isolated leader's appends stay unacknowledged and are truncated")),
                    ""),
            new Scenario("out-of-sync-election",
                    "unclean off, rf=2, min.insync.replicas=1: the follower is cut off and the ISR shrinks to the leader, "
                            + "which acknowledges alone; the leader is killed and the out-of-sync follower returns: a clean "
                            + "election must wait for the leader (offline meanwhile); the leader restarts",
                    new Settings(3, 2, "all", true, 1, false),
                    List.of(waitS(8), new Step.Cut(FOLLOWERS, NOT_FOLLOWERS), awaitIsr(Role.LEADER), waitS(SOLO_SECONDS),
                            new Step.Kill(Role.LEADER), new Step.Heal(), waitS(12), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, valid("unclean election is off: only the ISR (the dead leader) may lead, so nothing acknowledged is lost"),
                            BROKER, valid("as Kafka: the partition is offline until the leader returns")),
                    ""),
            new Scenario("sole-replica-power-loss",
                    "acks=all with min.insync.replicas=2 (rf=2): the follower is cut off and the ISR shrinks to the leader, "
                            + "which must then refuse writes; the leader loses power (its disk forgets what was not "
                            + "fsynced: the broker fsyncs once a second) and returns as the only in-sync replica",
                    new Settings(3, 2, "all", true, 2, false, FLUSH_EVERY_SECOND),
                    List.of(waitS(8), new Step.Cut(FOLLOWERS, NOT_FOLLOWERS), awaitIsr(Role.LEADER), waitS(SOLO_SECONDS),
                            new Step.PowerOff(LEADER), new Step.Heal(), waitS(10), new Step.PowerOn(Role.LEADER),
                            awaitLeader(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, valid("the leader alone is fewer than min.insync.replicas: it refused every write, so "
                                    + "the forgotten second held nothing acknowledged (min-isr-1 shows the loss with 1)"),
                            BROKER, valid("as Kafka")),
                    "the power-loss filesystem (FUSE on the host)"),
            new Scenario("retry-after-failover",
                    "idempotent producers, acks=all, rf=3, min.insync.replicas=2: the second follower is cut from the "
                            + "leader, so acknowledgements wait while the first follower still copies every batch; the "
                            + "leader is killed, the first follower takes over and the producers retry those batches",
                    SAFE,
                    List.of(waitS(8), new Step.Cut(Set.of(Role.FOLLOWER_2), LEADER), waitS(1), new Step.Kill(Role.LEADER),
                            new Step.Heal(), waitS(10), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, valid("the new leader rebuilt the producers' state from the batches it copied: each retry "
                                    + "is answered with its first offsets, not appended twice"),
                            BROKER, valid("as Kafka")),
                    ""),
            new Scenario("isr-shrink-unreported",
                    "acks=all, rf=3, min.insync.replicas=2, replica.lag.time.max.ms=1000, broker.session.timeout.ms=6000: "
                            + "the first follower (first in replica order) is cut from the leader only, so it stays "
                            + "registered while the ISR shrinks without it; the leader acknowledges with the second "
                            + "follower, then is killed: the controller must elect the second follower",
                    new Settings(3, 3, "all", true, 2, false, SLOW_FENCING),
                    List.of(waitS(8), new Step.Cut(Set.of(Role.FOLLOWER_1), LEADER), waitS(4), new Step.Kill(Role.LEADER),
                            new Step.Heal(), waitS(15), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, valid("the shrink went through the controller, so the lagging follower is not electable"),
                            BROKER, valid("as Kafka")),
                    ""),
            new Scenario("deposed-leader-returns",
                    "acks=all, rf=3, min.insync.replicas=2, broker.session.timeout.ms=17000: the leader is cut from every "
                            + "other node for 20 s while clients still reach it (it appends what it can never acknowledge, "
                            + "and sends expire), the first follower takes over; the "
                            + "network heals, the old leader follows and must truncate its tail; then the first follower "
                            + "is killed so the old leader (first in replica order) leads again and its log is read",
                    new Settings(3, 3, "all", true, 2, false, SLOW_LEADER_FENCING),
                    List.of(waitS(8), new Step.Cut(LEADER, REST), waitS(20), new Step.Heal(), waitS(12),
                            new Step.Kill(Role.FOLLOWER_1), awaitLeader(Role.LEADER), waitS(8),
                            new Step.Start(Role.FOLLOWER_1), waitS(5)),
                    Map.of(KAFKA, valid("the new leader's epoch tells the old one where its log diverged: it truncates there"),
                            BROKER, valid("as Kafka (leader-epoch truncation)")),
                    ""),
            new Scenario("diverged-leader-returns",
                    "acks=all, rf=3, min.insync.replicas=2, broker.session.timeout.ms=26000, broker.heartbeat.interval.ms=8500, "
                            + "producers' batch.size=1 (batches of one or two records): "
                            + "the leader is cut from every other node while clients still reach it, until the first follower "
                            + "leads; the sends it appends expire unacknowledged (15 s) before the controller fences it (at "
                            + "least 17 s, wherever the controller was), so the producers never retry them and the "
                            + "first follower, leading, writes other values at those offsets; the network heals, the old "
                            + "leader follows and must truncate; once it is back in the ISR the first follower is killed "
                            + "so the old leader (first in replica order) leads again and its log is read",
                    new Settings(3, 3, "all", true, 2, false, SLOWER_LEADER_FENCING, ONE_RECORD_BATCHES),
                    List.of(waitS(2), new Step.Cut(LEADER, REST), awaitLeader(Role.FOLLOWER_1), waitS(3), new Step.Heal(),
                            new Step.AwaitInIsr(Role.LEADER, Duration.ofSeconds(60)), new Step.Kill(Role.FOLLOWER_1),
                            awaitLeader(Role.LEADER), waitS(3)),
                    Map.of(KAFKA, valid("the new leader's epoch tells the old one where its log diverged: it truncates there"),
                            BROKER, valid("as Kafka (leader-epoch truncation)")),
                    ""),
            new Scenario("torn-follower-leads",
                    "acks=all, rf=3, min.insync.replicas=2: the first follower crashes and the last 16 bytes of its newest "
                            + "segment are zeroed with the file's length kept (its last page never reached the disk); it "
                            + "restarts, recovers and catches up; then the leader is killed so the first follower (first "
                            + "in replica order) leads and its log is read",
                    SAFE,
                    List.of(waitS(8), new Step.TearTail(Role.FOLLOWER_1, 16), waitS(15), new Step.Kill(Role.LEADER),
                            awaitLeader(Role.FOLLOWER_1), waitS(8), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, valid("recovery checks every batch after the recovery point and cuts the torn one; the "
                                    + "follower fetches it again from the leader"),
                            BROKER, valid("as Kafka")),
                    ""));

    /**
     * KIP-101 scenario 2. With the power-loss filesystem both replicas lose their unsynced tails at one instant (as in
     * the KIP); without it the leader's tail is cut by hand (crash, cut bytes of its newest segment, restart).
     * Both then make the old follower leader again so that whatever it kept is read.
     */
    static Scenario divergence(boolean power) {
        List<Step> steps = power
                ? List.of(waitS(8), new Step.Kill(Role.FOLLOWERS), new Step.PowerOff(LEADER), waitS(2),
                        new Step.PowerOn(Role.LEADER), awaitLeader(Role.LEADER), waitS(4), new Step.Start(Role.FOLLOWERS),
                        waitS(10), new Step.Kill(Role.LEADER), awaitLeader(Role.FOLLOWERS), waitS(4),
                        new Step.Start(Role.LEADER), waitS(6))
                : List.of(waitS(8), new Step.Kill(Role.FOLLOWERS), new Step.TruncateTail(Role.LEADER, 4096),
                        awaitLeader(Role.LEADER), waitS(4), new Step.Start(Role.FOLLOWERS), waitS(10),
                        new Step.Kill(Role.LEADER), awaitLeader(Role.FOLLOWERS), waitS(4), new Step.Start(Role.LEADER), waitS(6));
        return new Scenario("kip-101-divergence",
                "KIP-101 scenario 2 (rf=2) " + (power
                        ? "on the power-loss filesystem: the follower crashes (kill -9: its page cache survives), then the "
                        + "leader loses power and its disk forgets what was not fsynced (the broker fsyncs every 5 s); "
                        + "the leader returns and takes writes in a new epoch; the follower returns; then the leader is "
                        + "killed so the old follower leads"
                        : "by byte cutting (no power-loss filesystem here): the follower is killed, the leader crashes and "
                        + "loses 4 KiB of its segment tail (an unsynced page cache at a power cut), restarts and takes writes "
                        + "in a new epoch; the follower returns; then the leader is killed so the old follower leads"),
                new Settings(3, 2, "all", false, 1, false, power ? FLUSH_EVERY_5_SECONDS : Map.of()),
                steps, DIVERGENCE_EXPECT, "--sut broker-impl --truncation high-watermark");
    }

    /** Whether this machine can mount the power-loss filesystem in a node (the FUSE device). */
    static boolean powerLossAvailable() {
        return java.nio.file.Files.exists(java.nio.file.Path.of("/dev/fuse"));
    }

    /** The scenario as this machine runs it: kip-101-divergence falls back to byte cutting without FUSE. */
    static Scenario forRun(String name) {
        Scenario s = named(name);
        return s.name().equals("kip-101-divergence") && !powerLossAvailable() ? divergence(false) : s;
    }

    /** Every variant of a name (the one a stored run used is found by its script). */
    static List<Scenario> variants(String name) {
        Scenario s = named(name);
        return s.name().equals("kip-101-divergence") ? List.of(divergence(true), divergence(false)) : List.of(s);
    }

    private static Expectation lost(String why) {
        return new Expectation(Verdict.INVALID, "lost-write", why);
    }

    private static Expectation valid(String why) {
        return new Expectation(Verdict.VALID, null, why);
    }

    static Scenario named(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown scenario '" + name + "'; known: " + String.join(", ", ALL.stream().map(Scenario::name).toList())));
    }
}
