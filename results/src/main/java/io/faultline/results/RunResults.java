package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;

import java.util.List;
import java.util.Map;

/**
 * The shape of results.json: the overall verdict (read back by {@link RunStore#listRuns()}), whether the run
 * completed, every check's result, and the figures the report measured (availability, throughput, anomaly counts)
 * so campaign pages need not re-read histories. {@code caveats} say why a verdict is weaker than it looks (e.g. the
 * final drain did not reach every offset, so unread values are not proven lost). {@code durability}, when power
 * faults ran, says whether the system's flush settings promised that acknowledged writes survive them, so a loss
 * reads as a bug or as allowed by the settings (null otherwise). {@code liveness} is the recovery check's finding,
 * apart from the safety checks (null when the run did not get that far).
 */
public record RunResults(Verdict verdict, boolean complete, Map<String, CheckResult> checks,
                         HtmlReport.Summary summary, List<String> caveats, String durability, Liveness liveness) {
    public RunResults {
        caveats = caveats == null ? List.of() : List.copyOf(caveats);
    }

    public RunResults(Verdict verdict, boolean complete, Map<String, CheckResult> checks, HtmlReport.Summary summary,
                      List<String> caveats, String durability) {
        this(verdict, complete, checks, summary, caveats, durability, null);
    }

    public RunResults(Verdict verdict, boolean complete, Map<String, CheckResult> checks, HtmlReport.Summary summary,
                      List<String> caveats) {
        this(verdict, complete, checks, summary, caveats, null);
    }

    public RunResults(Verdict verdict, boolean complete, Map<String, CheckResult> checks, HtmlReport.Summary summary) {
        this(verdict, complete, checks, summary, List.of());
    }
}
