package io.faultline.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The faultline.bug.* switches: off by default, refused without faultline.bugs.allowed, unknown names refused. */
class SeededBugsConfigTest {
    private static Properties props(Map<String, String> m) {
        Properties p = new Properties();
        p.setProperty("log.dirs", "/tmp/x");
        m.forEach(p::setProperty);
        return p;
    }

    @Test
    void noSwitchMeansNoBug() {
        BrokerConfig c = BrokerConfig.from(props(Map.of()));
        assertTrue(c.bugs().isEmpty());
        for (SeededBug b : SeededBug.values()) assertFalse(c.bugs().on(b));
        assertEquals(SeededBugs.NONE, c.bugs());
    }

    @Test
    void aSwitchWithoutAllowedIsRefusedWithOneClearMessage() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> BrokerConfig.from(props(Map.of("faultline.bug.read-past-hw", "true"))));
        assertEquals(List.of("faultline.bug.read-past-hw is a seeded bug for testing the harness; it runs only with "
                + "faultline.bugs.allowed=true"), e.problems());
        assertThrows(ConfigException.class, () -> BrokerConfig.from(props(Map.of(
                "faultline.bug.read-past-hw", "true", "faultline.bugs.allowed", "false"))));
    }

    @Test
    void anUnknownNameIsRefusedListingTheKnownOnes() {
        ConfigException e = assertThrows(ConfigException.class, () -> BrokerConfig.from(props(Map.of(
                "faultline.bug.read-past-lw", "true", "faultline.bugs.allowed", "true"))));
        assertEquals(1, e.problems().size());
        String msg = e.problems().get(0);
        assertTrue(msg.startsWith("faultline.bug.read-past-lw: unknown seeded bug 'read-past-lw'"), msg);
        for (SeededBug b : SeededBug.values()) assertTrue(msg.contains(b.configName()), msg);
    }

    @Test
    void aBadValueIsRefused() {
        assertThrows(ConfigException.class, () -> BrokerConfig.from(props(Map.of(
                "faultline.bug.read-past-hw", "yes", "faultline.bugs.allowed", "true"))));
        assertThrows(ConfigException.class, () -> BrokerConfig.from(props(Map.of("faultline.bugs.allowed", "maybe"))));
    }

    @Test
    void allowedSwitchesTurnBugsOn() {
        BrokerConfig c = BrokerConfig.from(props(Map.of("faultline.bugs.allowed", "true",
                "faultline.bug.read-past-hw", "true", "faultline.bug.epoch-not-bumped", "TRUE",
                "faultline.bug.hw-from-leader-leo", "false")));
        assertEquals(Set.of(SeededBug.READ_PAST_HW, SeededBug.EPOCH_NOT_BUMPED), c.bugs().enabled());
        assertTrue(c.bugs().on(SeededBug.READ_PAST_HW));
        assertFalse(c.bugs().on(SeededBug.HW_FROM_LEADER_LEO));
        assertTrue(BrokerConfig.from(props(Map.of("faultline.bugs.allowed", "true"))).bugs().isEmpty());
    }

    @Test
    void theNamesAreTheContract() {
        assertEquals(List.of("hw-from-leader-leo", "acks-all-leader-only", "min-isr-ignored", "follower-no-truncate",
                        "election-ignores-isr", "epoch-not-bumped", "fenced-leader-serves", "read-past-hw",
                        "isr-shrink-local", "dedup-not-rebuilt", "offset-commit-unreplicated",
                        "recovery-keeps-torn-batch", "lso-ignores-open-txn", "markers-skipped-on-failover",
                        "zombie-not-fenced", "aborted-index-not-recovered"),
                Arrays.stream(SeededBug.values()).map(SeededBug::configName).toList());
        for (SeededBug b : SeededBug.values()) {
            assertEquals(b, SeededBug.byName(b.configName()).orElseThrow());
            assertFalse(b.description().isBlank());
        }
    }
}
