package io.faultline.broker.config;

import java.util.List;

/** A server.properties that cannot run: every problem found, one per line, each naming the key and the value. */
public final class ConfigException extends IllegalArgumentException {
    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super("Invalid broker configuration:\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
