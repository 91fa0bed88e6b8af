package io.faultline.results;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** test.json as a reader asks about it: grouped, without the nesting prefix, nothing dropped. */
class ParameterGroupsTest {
    private static final Map<String, Object> TEST_JSON = Map.of(
            "test-name", "broker-impl-queue", "seed", 7,
            "versions", Map.of("sut", "broker-impl 0.1.0", "kafka-clients", "4.4.0"),
            "parameters", Map.of("sut", "broker-impl", "nodes", 3, "acks", "all", "workload", "queue",
                    "nemesis", List.of("partition", "kill"), "broker-props", Map.of("faultline.truncation", "leader-epoch"),
                    "something-new", "x"));

    @Test
    void groupsBySystemSettingsWorkloadFaultsVersionsAndRunWithoutThePrefix() {
        var groups = ParameterGroups.of(TEST_JSON);
        assertEquals(List.of("system", "settings", "workload", "faults", "versions", "run"), List.copyOf(groups.keySet()));
        assertEquals(Map.of("sut", "broker-impl", "nodes", "3"), groups.get("system"));
        assertEquals(Map.of("acks", "all", "broker-props.faultline.truncation", "leader-epoch"), groups.get("settings"));
        assertEquals(Map.of("workload", "queue"), groups.get("workload"));
        assertEquals(Map.of("nemesis", "[partition, kill]"), groups.get("faults"));
        assertEquals(Map.of("versions.sut", "broker-impl 0.1.0", "versions.kafka-clients", "4.4.0"), groups.get("versions"));
        assertEquals(Map.of("test-name", "broker-impl-queue", "seed", "7", "something-new", "x"), groups.get("run"),
                "a key no group claims is still shown");
    }

    @Test
    void differingKeysIncludeOnesMissingOnOneSide() {
        var a = Map.of("sut", "broker-impl", "acks", "all", "seed", "1");
        var b = Map.of("sut", "broker-impl", "acks", "1", "seed", "1", "flush-ms", "5");
        assertEquals(List.of("acks", "flush-ms"), ParameterGroups.differing(List.of(a, b)));
        assertEquals(List.of(), ParameterGroups.differing(List.of(a, a)));
    }
}
