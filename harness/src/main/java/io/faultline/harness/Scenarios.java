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

    private static final Set<Role> LEADER = Set.of(Role.LEADER), FOLLOWERS = Set.of(Role.FOLLOWERS),
            REST = Set.of(Role.FOLLOWERS, Role.OTHERS), NOT_FOLLOWERS = Set.of(Role.LEADER, Role.OTHERS);

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
                    List.of(waitS(8), new Step.Cut(FOLLOWERS, NOT_FOLLOWERS), waitS(10), new Step.Kill(Role.LEADER),
                            new Step.Heal(), waitS(12), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, lost("unclean election makes an out-of-sync replica leader: what only the dead leader had is gone"),
                            BROKER, lost("unclean election makes an out-of-sync replica leader: what only the dead leader had is gone")),
                    ""),
            new Scenario("min-isr-1",
                    "the same script as unclean-election with unclean off: acks=all, min.insync.replicas=1, the ISR "
                            + "shrunk to the leader, the leader killed while its follower is out of sync",
                    new Settings(3, 2, "all", false, 1, false),
                    List.of(waitS(8), new Step.Cut(FOLLOWERS, NOT_FOLLOWERS), waitS(10), new Step.Kill(Role.LEADER),
                            new Step.Heal(), waitS(12), new Step.Start(Role.LEADER), waitS(8)),
                    Map.of(KAFKA, new Expectation(Verdict.VALID, null, "a clean election never picks the out-of-sync follower: "
                                    + "the partition is offline until the old leader returns with its log (a process kill keeps the "
                                    + "page cache); loss needs a second mistake (unclean election, power loss, a broker electing "
                                    + "outside the ISR)"),
                            BROKER, new Expectation(Verdict.VALID, null, "as Kafka: clean election waits for the only in-sync replica")),
                    ""),
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
                    "broker-impl --truncation high-watermark to show the bug"),
            new Scenario("kip-101-divergence",
                    "KIP-101 scenario 2 (rf=2): the follower, then the leader, crash; the leader loses its log tail (as an "
                            + "unsynced page cache at a power cut), restarts, takes new writes in a new epoch; the follower returns",
                    new Settings(3, 2, "all", false, 1, false),
                    List.of(waitS(8), new Step.Kill(Role.FOLLOWERS), new Step.TruncateTail(Role.LEADER, 4096), waitS(10),
                            new Step.Start(Role.FOLLOWERS), waitS(10)),
                    Map.of(KAFKA, new Expectation(Verdict.INVALID, "lost-write", "the cut tail was acknowledged (Kafka does not fsync "
                                    + "before acks, so a power cut may lose it) but the follower truncates to the leader's epoch end: "
                                    + "losses only, no divergence"),
                            BROKER, new Expectation(Verdict.INVALID, "lost-write", "as Kafka: losses only, no divergence"),
                            BROKER_HW, new Expectation(Verdict.INVALID, "divergence", "the follower truncates to its high watermark "
                                    + "and keeps entries the new leader never had: replicas diverge at the same offsets")),
                    "broker-impl --truncation high-watermark to show the bug"));

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
