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

    private static final Map<String, Expectation> DIVERGENCE_EXPECT = Map.of(
            KAFKA, valid("the tail the leader's disk forgot was never acknowledged (the ISR still held the crashed "
                    + "follower, so acks=all waited), and the old follower truncates to the new leader's epoch end"),
            BROKER, valid("as Kafka: leader-epoch truncation, no acknowledged write lost, no divergence"),
            BROKER_HW, new Expectation(Verdict.INVALID, "divergence", "the old follower truncates to its high watermark "
                    + "and keeps entries the new leader never had; once it leads, readers see other values at the same offsets"));

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
                            BROKER, valid("leader-epoch truncation: the restarted follower keeps what it fetched"),
                            BROKER_HW, lost("a restarted follower truncates to its high watermark and is then elected: the acked tail is gone")),
                    "--sut broker-impl --truncation high-watermark"),
            divergence(true));

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
