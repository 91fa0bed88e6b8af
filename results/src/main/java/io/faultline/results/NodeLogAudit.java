package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The nodes' logs read for the system's own invariants failing, as Jepsen's log-file-pattern checker reads them for
 * panics: an exception of a class that signals a programming error (an illegal state, a null, an index out of
 * bounds, a bad cast, a failed assertion, …) thrown by the system's own code is a bug, whatever the clients saw. A
 * broker that checks its invariants where data changes (a non-monotonic offset index entry throws) often turns a
 * mistake into a refused request or a stopped replica fetcher rather than a lost write, and then only its log tells.
 *
 * <p>Attribution: the exception's stack trace must start, once the JDK's own frames are skipped, in one of the
 * system's packages (broker-impl: {@code io.faultline.broker.}; Apache Kafka: {@code kafka.} and
 * {@code org.apache.kafka.}). An exception raised inside a library the system uses (the Raft library's connection
 * races, say) is not the system's invariant and is not counted; a line that names an exception without a stack trace
 * cannot be attributed and is not counted either. Exceptions that report bad input or the environment
 * (IllegalArgumentException, I/O errors, timeouts) are not programming errors by this rule.
 *
 * <p>Calibrated before it judged anything, on the 110 runs stored on 6 December 2026 with node logs (broker-impl and
 * Kafka 4.4, nightly, txn-queue and seeded-bug runs, and 60 runs of broker-impl mutants): no such exception in any
 * run of an unmutated broker; in mutant runs, invariant failures of the offset and time indexes (two of them in runs
 * every other check called valid, one with a replica fetcher stopped for good) and a bad cast.
 */
public final class NodeLogAudit {
    public static final String CHECKER = "node-logs";
    /** The anomaly: the system's own code threw an exception that signals a programming error. */
    public static final String BROKER_EXCEPTION = "broker-exception";
    static final Set<String> PROGRAMMING_ERRORS = Set.of("IllegalStateException", "NullPointerException",
            "ArrayIndexOutOfBoundsException", "IndexOutOfBoundsException", "StringIndexOutOfBoundsException",
            "ClassCastException", "AssertionError", "ConcurrentModificationException", "BufferUnderflowException",
            "BufferOverflowException", "ArithmeticException", "NegativeArraySizeException", "IllegalMonitorStateException",
            "StackOverflowError");
    /** A fully qualified exception class at a line's start or after "Caused by:", a colon or a space, then ":" or the end. */
    private static final Pattern THROWN = Pattern.compile("(?:^|[\\s:(])((?:[a-z][\\w$]*\\.)+([A-Z][\\w$]*))(?::|$)");
    private static final Pattern FRAME = Pattern.compile("^\\s+at\\s+(?:[\\w.$/@-]+/)?([\\w$.]+)\\(");
    private static final Pattern MORE = Pattern.compile("^\\s+\\.\\.\\. \\d+ (?:more|common frames omitted)");
    private static final int MAX_EXAMPLES = 10, MAX_LINE_CHARS = 300, FRAMES_LOOKED_AT = 40;
    private static final List<String> JDK = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");

    private NodeLogAudit() {}

    /** One exception found: where, the line, and the system frame it was thrown from. */
    record Found(String node, String file, long line, String text, String exceptionClass, String frame) {
        String signature() {
            return exceptionClass + " at " + frame;
        }
    }

    /**
     * The check over every node's logs; null when there are no logs or the system's packages are unknown (a broker
     * from a descriptor). {@code ownPackages}: prefixes of the system's own classes, e.g. "io.faultline.broker.".
     */
    public static CheckResult check(Path nodesDir, List<String> ownPackages) {
        if (nodesDir == null || !Files.isDirectory(nodesDir) || ownPackages == null || ownPackages.isEmpty()) return null;
        try {
            List<Found> found = new ArrayList<>();
            int files = 0;
            for (Path node : LogExcerpts.list(nodesDir)) {
                if (!Files.isDirectory(node)) continue;
                for (Path file : LogExcerpts.logFiles(node)) {
                    files++;
                    found.addAll(scan(node.getFileName().toString(), file, ownPackages));
                }
            }
            if (files == 0) return null;
            Map<String, Long> counts = new TreeMap<>();
            Map<String, Found> firstBySignature = new LinkedHashMap<>();
            Map<String, Long> perSignature = new LinkedHashMap<>();
            for (Found f : found) {
                counts.merge(BROKER_EXCEPTION, 1L, Long::sum);
                perSignature.merge(f.signature(), 1L, Long::sum);
                firstBySignature.putIfAbsent(f.signature(), f);
            }
            List<Example> examples = new ArrayList<>();
            for (Found f : firstBySignature.values()) {
                if (examples.size() == MAX_EXAMPLES) break;
                long times = perSignature.get(f.signature());
                examples.add(new Example(BROKER_EXCEPTION, null, "node " + f.node() + ", " + f.file() + " line " + f.line()
                        + ": " + f.text() + " (thrown at " + f.frame() + ")" + (times > 1 ? "; " + times + " times in all" : ""), List.of()));
            }
            Map<String, Object> stats = new LinkedHashMap<>();
            stats.put("log-files", files);
            stats.put("system-packages", ownPackages);
            stats.put("distinct-exceptions", perSignature.size());
            return new CheckResult(CHECKER, counts.isEmpty() ? Verdict.VALID : Verdict.INVALID, counts, Set.of(),
                    examples.isEmpty() ? Map.of() : Map.of(BROKER_EXCEPTION, examples), stats, null);
        } catch (RuntimeException e) {
            return CheckResult.failure(CHECKER, e);
        }
    }

    /** The attributed programming-error exceptions of one log file; an unreadable file yields none. */
    static List<Found> scan(String node, Path file, List<String> ownPackages) {
        List<Found> out = new ArrayList<>();
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader r = new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(file), decoder), 1 << 16)) {
            String pending = null, pendingClass = null;
            long pendingLine = 0, n = 0;
            int framesSeen = 0;
            String lastTraceFrame = null; // the enclosing trace's frame, for a cause whose frames are all "... N more"
            String line;
            while ((line = r.readLine()) != null) {
                n++;
                Matcher frame = FRAME.matcher(line);
                if (pending != null) {
                    if (frame.find()) {
                        framesSeen++;
                        String cls = frame.group(1);
                        if (!isJdk(cls)) {
                            if (owned(cls, ownPackages)) out.add(new Found(node, file.getFileName().toString(), pendingLine, pending, pendingClass, cls));
                            lastTraceFrame = cls;
                            pending = null;
                        } else if (framesSeen >= FRAMES_LOOKED_AT) {
                            pending = null;
                        }
                        continue;
                    }
                    if (MORE.matcher(line).find()) {
                        if (lastTraceFrame != null && owned(lastTraceFrame, ownPackages)) {
                            out.add(new Found(node, file.getFileName().toString(), pendingLine, pending, pendingClass, lastTraceFrame));
                        }
                        pending = null;
                        continue;
                    }
                    pending = null; // no frame followed: not attributable
                }
                if (frame.find()) {
                    if (lastTraceFrame == null && !isJdk(frame.group(1))) lastTraceFrame = frame.group(1);
                    continue;
                }
                if (!line.startsWith("Caused by:") && !line.startsWith("\t")) lastTraceFrame = null; // a new log record
                Matcher m = THROWN.matcher(line);
                while (m.find()) {
                    if (PROGRAMMING_ERRORS.contains(m.group(2))) {
                        pending = LogExcerpts.clip(line.strip(), MAX_LINE_CHARS);
                        pendingClass = m.group(1);
                        pendingLine = n;
                        framesSeen = 0;
                        break;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return out;
        }
        return out;
    }

    private static boolean isJdk(String cls) {
        for (String p : JDK) if (cls.startsWith(p)) return true;
        return false;
    }

    private static boolean owned(String cls, List<String> ownPackages) {
        for (String p : ownPackages) if (cls.startsWith(p)) return true;
        return false;
    }
}
