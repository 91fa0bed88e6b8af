package io.faultline.docker;

import java.util.List;
import java.util.Map;

/**
 * How to run one node: its image, the program the node runs (PID 1 after the node-run entry point), and
 * its environment. A system under test produces one per node.
 */
public record NodeSpec(String image, List<String> command, Map<String, String> env, long memoryBytes) {
    public NodeSpec {
        command = List.copyOf(command);
        env = Map.copyOf(env);
    }

    public static NodeSpec of(String image, List<String> command) {
        return new NodeSpec(image, command, Map.of(), 0);
    }

    public NodeSpec withEnv(Map<String, String> more) {
        var merged = new java.util.HashMap<>(env);
        merged.putAll(more);
        return new NodeSpec(image, command, merged, memoryBytes);
    }

    public NodeSpec withMemoryLimit(long bytes) {
        return new NodeSpec(image, command, env, bytes);
    }
}
