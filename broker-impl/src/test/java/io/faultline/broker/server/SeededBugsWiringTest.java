package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.common.SeededBug;
import io.faultline.broker.common.SeededBugs;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** faultline.bug.* in server.properties reaches the components that carry the bugs (and nothing else is on). */
class SeededBugsWiringTest {
    @TempDir
    Path dir;

    @Test
    void switchesReachPartitionsAndReplication() throws Exception {
        try (TestBroker b = TestBroker.start(dir, Map.of("faultline.bugs.allowed", "true",
                "faultline.bug.read-past-hw", "true", "faultline.bug.hw-from-leader-leo", "true"))) {
            SeededBugs expected = SeededBugs.of(SeededBug.READ_PAST_HW, SeededBug.HW_FROM_LEADER_LEO);
            assertEquals(expected, b.broker.context().config().bugs());
            assertEquals(expected, b.broker.context().partitions().bugs());
            assertEquals(expected, b.broker.context().replication().config().bugs());
        }
    }
}
