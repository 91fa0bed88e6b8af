package io.faultline.checker;

import java.util.List;

/**
 * One concrete instance of an anomaly, for people: a one-sentence explanation and the indexes of the ops involved,
 * so a report can link to them. {@code key} is the queue key concerned, or null.
 */
public record Example(String category, Integer key, String explanation, List<Long> ops) {
    public Example {
        ops = List.copyOf(ops);
    }
}
