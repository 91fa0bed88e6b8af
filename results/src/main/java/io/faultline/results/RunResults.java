package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;

import java.util.Map;

/**
 * The shape of results.json: the overall verdict (read back by {@link RunStore#listRuns()}), whether the run
 * completed, every check's result, and the figures the report measured (availability, throughput, anomaly counts)
 * so campaign pages need not re-read histories.
 */
public record RunResults(Verdict verdict, boolean complete, Map<String, CheckResult> checks,
                         HtmlReport.Summary summary) {
}
