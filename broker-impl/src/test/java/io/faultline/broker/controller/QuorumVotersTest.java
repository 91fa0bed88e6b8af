package io.faultline.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.Time;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuorumVotersTest {

    @Test
    void parsesKafkasVoterSyntaxAndDerivesRaftPorts() {
        Map<Integer, InetSocketAddress> v = QuorumVoters.parse("1@n1:9093, 2@n2:9093,3@[::1]:9094");
        assertEquals(List.of(1, 2, 3), List.copyOf(v.keySet()));
        assertEquals("n2", v.get(2).getHostString());
        assertEquals("::1", v.get(3).getHostString());
        ControllerNodeConfig cfg = ControllerNodeConfig.fromQuorumVoters(4, "1@n1:9093,2@n2:9093,3@n3:9093",
                Map.of(4, InetSocketAddress.createUnresolved("n4", 9093)), Path.of("/tmp/x"), Time.SYSTEM,
                ControllerSettings.DEFAULTS, null);
        assertFalse(cfg.isVoter());
        assertEquals(9093 + QuorumVoters.DEFAULT_RAFT_PORT_OFFSET, cfg.raftVoters().get(1).getPort());
        assertEquals(10093, cfg.raftListeners().get(4).getPort());
        assertTrue(ControllerNodeConfig.fromQuorumVoters(1, "1@n1:9093", Map.of(), Path.of("/tmp/x"), Time.SYSTEM,
                ControllerSettings.DEFAULTS, null).isVoter());
    }

    @Test
    void badVoterStringsAreRefusedWithTheOffendingEntry() {
        for (String bad : List.of("", "1@h", "x@h:1", "1@h:0", "1h:9", "1@h:9,1@g:9", "1@h:port")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QuorumVoters.parse(bad), bad);
            assertTrue(e.getMessage().contains("voter") || e.getMessage().contains("empty"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> ControllerNodeConfig.fromQuorumVoters(9, "1@h:1", Map.of(),
                Path.of("/tmp/x"), Time.SYSTEM, ControllerSettings.DEFAULTS, null));
    }
}
