package io.faultline.results;

import io.faultline.checker.history.Op;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where in the history the op with a given index is (its first position). A recorded history's indices rise
 * strictly, and then a binary search finds it without a boxed map of a million entries (the report looks up only
 * a few example ops); any other history gets the map.
 */
public final class PositionOfIndex {
    private final List<Op> history;
    private final Map<Long, Integer> map;

    PositionOfIndex(List<Op> history) {
        this.history = history;
        this.map = strictlyRising(history) ? null : firstPositions(history);
    }

    /** The first position of the op with this index, or null if there is none. */
    Integer get(long index) {
        if (map != null) {
            return map.get(index);
        }
        int lo = 0, hi = history.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long at = history.get(mid).index();
            if (at < index) {
                lo = mid + 1;
            } else if (at > index) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return null;
    }

    private static boolean strictlyRising(List<Op> history) {
        for (int i = 1; i < history.size(); i++) {
            if (history.get(i).index() <= history.get(i - 1).index()) {
                return false;
            }
        }
        return true;
    }

    private static Map<Long, Integer> firstPositions(List<Op> history) {
        Map<Long, Integer> out = new HashMap<>();
        for (int i = 0; i < history.size(); i++) {
            out.putIfAbsent(history.get(i).index(), i);
        }
        return out;
    }
}
