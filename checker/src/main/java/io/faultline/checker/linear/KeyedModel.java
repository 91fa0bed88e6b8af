package io.faultline.checker.linear;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ArrayList;

/**
 * Many independent objects of one model, one per key, as a single object whose state maps each key to its
 * object's state (a key absent is in the initial state). Checking a history against this model in one search is
 * what partitioning avoids: by P-compositionality (Herlihy &amp; Wing; Porcupine's {@code Partition}) a history is
 * linearizable iff each key's sub-history is, so {@link #partition} splits it and each part is searched alone, with
 * a search space of the parts' sum instead of their product. The whole-history model stays as the reference the
 * partitioned verdict is tested against.
 */
public final class KeyedModel<S, I, O> implements Model<Map<String, S>, Keyed<I>, O> {
    private final Model<S, I, O> inner;

    public KeyedModel(Model<S, I, O> inner) {
        this.inner = inner;
    }

    @Override
    public Map<String, S> initial() {
        return Map.of();
    }

    @Override
    public Map<String, S> step(Map<String, S> state, Keyed<I> input, O output) {
        S initial = inner.initial();
        S current = state.getOrDefault(input.key(), initial);
        S after = inner.step(current, input.input(), output);
        if (after == null) {
            return null;
        }
        if (after.equals(current)) {
            return state;
        }
        Map<String, S> copy = new HashMap<>(state);
        if (after.equals(initial)) {
            copy.remove(input.key()); // one representation per state, so equal states are equal maps
        } else {
            copy.put(input.key(), after);
        }
        return Map.copyOf(copy);
    }

    @Override
    public String describe(Keyed<I> input, O output) {
        return input.key() + ": " + inner.describe(input.input(), output);
    }

    /** The history split per key (keys in order of first appearance, ops in their order), inputs unwrapped. */
    public static <I, O> Map<String, List<LinOp<I, O>>> partition(List<LinOp<Keyed<I>, O>> ops) {
        Map<String, List<LinOp<I, O>>> parts = new LinkedHashMap<>();
        for (LinOp<Keyed<I>, O> op : ops) {
            parts.computeIfAbsent(op.input().key(), k -> new ArrayList<>()).add(new LinOp<>(op.id(), op.process(),
                    op.invoke(), op.complete(), op.input().input(), op.output()));
        }
        return parts;
    }
}
