package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.results.BugsPage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A catalog entry's own broker properties (zombie-not-fenced: transaction.version=1, since version 2 masks it) reach
 * that bug's runs and its own unseeded control, and no other run; test.json keeps them, and the page names them.
 * No Docker: the runner is a stand-in that records what it was given.
 */
class SeededBugPropertiesTest {
    private static final String ZOMBIE = "zombie-not-fenced";
    private static final String TV = "transaction.version";
    private static final BugHunt.Shape SHAPE = BugHunt.Shape.defaults(30);

    @Test
    void onlyZombieNotFencedCarriesPropertiesAndItsReasonIsGiven() {
        var zombie = SeededBugCatalog.named(ZOMBIE);
        assertEquals(Map.of(TV, "1"), zombie.brokerProperties());
        assertTrue(zombie.brokerPropertiesWhy().contains("masks"), zombie.brokerPropertiesWhy());
        assertEquals(List.of(ZOMBIE), SeededBugCatalog.ALL.stream().filter(e -> !e.brokerProperties().isEmpty())
                .map(SeededBugCatalog.Entry::name).toList());
        assertEquals(SeededBugCatalog.TXN_QUEUE_FAULTS, zombie.mix(), "the properties change the broker, not the mix");
        assertThrows(UnsupportedOperationException.class, () -> zombie.brokerProperties().put(TV, "2"));
    }

    @Test
    void anEntrysPropertiesNeedAReasonAndCannotBeASwitch() {
        var mix = SeededBugCatalog.TXN_QUEUE_FAULTS;
        assertThrows(IllegalArgumentException.class,
                () -> new SeededBugCatalog.Entry("x", "m", mix, "w", Map.of(TV, "1"), " "));
        assertThrows(IllegalArgumentException.class,
                () -> new SeededBugCatalog.Entry("x", "m", mix, "w", Map.of("faultline.bugs.allowed", "true"), "why"));
        assertTrue(new SeededBugCatalog.Entry("x", "m", mix, "w").brokerProperties().isEmpty());
    }

    @Test
    void thePropertyReachesExactlyTheBugsRunsAndItsOwnControl() {
        BugHunt.Plan plan = BugHunt.plan(List.of(), 2, SHAPE, 2612);
        plan.bugs().forEach((e, cs) -> cs.forEach(c -> {
            if (e.name().equals(ZOMBIE)) {
                assertEquals("1", c.brokerProperties().get(TV));
                assertEquals(List.of(ZOMBIE), SeededBugCatalog.switchedOn(c), "the switch as well");
            } else {
                assertNull(c.brokerProperties().get(TV), e.name() + " runs under the broker's default version");
            }
        }));
        // the txn-queue mix has two controls: the broker's default version, and version 1 for zombie-not-fenced
        var txnControls = plan.clean().keySet().stream().filter(k -> k.mix().equals(SeededBugCatalog.TXN_QUEUE_FAULTS)).toList();
        assertEquals(List.of(Map.of(), Map.of(TV, "1")), txnControls.stream().map(BugHunt.Control::brokerProperties).toList());
        plan.clean().forEach((k, cs) -> cs.forEach(c -> {
            assertEquals(List.of(), SeededBugCatalog.switchedOn(c), "a control is unseeded");
            assertEquals(k.brokerProperties().get(TV), c.brokerProperties().get(TV), k.describe());
        }));

        BugHunt.Plan others = BugHunt.plan(List.of("lso-ignores-open-txn", "aborted-index-not-recovered"), 2, SHAPE, 1);
        assertEquals(List.of(new BugHunt.Control(SeededBugCatalog.TXN_QUEUE_FAULTS, Map.of())),
                List.copyOf(others.clean().keySet()), "no version-1 control without zombie-not-fenced");
        assertTrue(others.allConfigs().stream().noneMatch(c -> c.brokerProperties().containsKey(TV)));
    }

    @Test
    void theRunnerIsHandedThePropertyAndTestJsonKeepsIt(@TempDir Path dir) throws Exception {
        var command = new BugsCommand();
        command.only = List.of("lso-ignores-open-txn", ZOMBIE);
        command.seeds = 2;
        BugHunt.Plan plan = command.plan(77);
        List<TestConfig> ran = new ArrayList<>();
        BugsPage.Input in = BugHunt.run(plan, (c, mix) -> {
            ran.add(c);
            assertEquals(SeededBugCatalog.TXN_QUEUE_FAULTS, mix, "one generic mix for both");
            return new TestRunner.Result(Verdict.VALID, dir, 0, List.of(), List.of(), 1);
        }, new PrintStream(new ByteArrayOutputStream(), true), "t");
        assertEquals(2 + 2 + 2 * 2, ran.size(), "two runs per bug, two per control (two controls)");
        for (TestConfig c : ran) {
            boolean zombie = SeededBugCatalog.switchedOn(c).equals(List.of(ZOMBIE));
            boolean lso = SeededBugCatalog.switchedOn(c).equals(List.of("lso-ignores-open-txn"));
            String tv = c.brokerProperties().get(TV);
            if (zombie) assertEquals("1", tv);
            if (lso) assertNull(tv);
            // replay reads test.json's broker-props back: the same broker, version included
            assertEquals(c, TestConfig.fromMap(c.asMap()));
            if (tv != null) assertEquals(tv, ((Map<?, ?>) c.asMap().get("broker-props")).get(TV));
            // and the brokers are configured with it
            assertEquals(tv, TestRunner.kafkaSettings(c).extra().get(TV));
        }
        assertEquals(2, ran.stream().filter(c -> SeededBugCatalog.switchedOn(c).isEmpty() && "1".equals(c.brokerProperties().get(TV))).count(),
                "the version-1 control");

        var zombieRow = in.bugs().stream().filter(b -> b.name().equals(ZOMBIE)).findFirst().orElseThrow();
        assertTrue(zombieRow.mix().endsWith(", broker transaction.version=1"), zombieRow.mix());
        var lsoRow = in.bugs().stream().filter(b -> b.name().equals("lso-ignores-open-txn")).findFirst().orElseThrow();
        assertFalse(lsoRow.mix().contains(TV), lsoRow.mix());
        String html = Files.readString(BugsPage.write(in, dir.resolve("page")));
        assertTrue(html.contains("faults every ~5 s, broker transaction.version=1"), "the page names the property");
    }

    @Test
    void testWithTheBugAppliesItsPropertiesUnlessTheUserSetsThem() {
        var options = new TestOptions();
        options.shape.sut = "broker-impl";
        options.bugs = List.of(ZOMBIE);
        assertEquals("1", options.toConfig().brokerProperties().get(TV), "test --bug zombie-not-fenced runs version 1");
        options.shape.brokerProps.put(TV, "2");
        assertEquals("2", options.toConfig().brokerProperties().get(TV), "--broker-prop wins");
        options.bugs = List.of("lso-ignores-open-txn");
        options.shape.brokerProps.clear();
        assertNull(options.toConfig().brokerProperties().get(TV));
    }
}
