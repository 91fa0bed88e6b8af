package io.faultline.checker;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a checker concluded. Plain data (records, strings, numbers, maps, lists) so Jackson can write it to
 * results.json as is.
 *
 * @param checker  the checker's name
 * @param verdict  valid / invalid / unknown
 * @param counts   anomaly category → number of instances found (every category the checker knows, zeros included)
 * @param allowed  categories that were counted but do not make the run invalid
 * @param examples category → up to N examples, for the categories with instances
 * @param stats    other figures worth reporting (e.g. how many ops were analysed)
 * @param error    why the verdict is unknown (for an internal error, the stack trace), else null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CheckResult(String checker, Verdict verdict, Map<String, Long> counts, Set<String> allowed,
                          Map<String, List<Example>> examples, Map<String, Object> stats, String error) {

    public CheckResult {
        counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
        allowed = Collections.unmodifiableSet(new TreeSet<>(allowed));
        examples = Collections.unmodifiableMap(new LinkedHashMap<>(examples));
        stats = Collections.unmodifiableMap(new LinkedHashMap<>(stats));
    }

    /** An UNKNOWN result carrying an internal error; what {@link Checker#check} returns instead of throwing. */
    public static CheckResult failure(String checker, Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        return new CheckResult(checker, Verdict.UNKNOWN, Map.of(), Set.of(), Map.of(), Map.of(),
                "checker failed: " + t + "\n" + sw);
    }

    public long count(String category) {
        return counts.getOrDefault(category, 0L);
    }

    public List<Example> examples(String category) {
        return examples.getOrDefault(category, List.of());
    }

    @JsonIgnore
    public boolean isValid() {
        return verdict == Verdict.VALID;
    }

    /** The categories with instances that are not allowed: why the result is invalid. */
    public Set<String> forbiddenFound() {
        Set<String> out = new TreeSet<>();
        counts.forEach((c, n) -> {
            if (n > 0 && !allowed.contains(c)) {
                out.add(c);
            }
        });
        return out;
    }
}
