package io.faultline.workloads.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.EdnWriter;
import io.faultline.checker.history.HistoryRecorder;
import io.faultline.checker.queue.TotalQueueChecker;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs the queue workload by hand against any broker and prints the verdict:
 * <pre>
 * java -cp ... io.faultline.workloads.queue.QueueWorkloadMain BOOTSTRAP OUTDIR [seconds=30] [assign|subscribe]
 *      [threads=5] [opsPerSecond=100] [seed=1]
 * </pre>
 * Writes OUTDIR/history.jsonl (as it happens) and OUTDIR/history.edn. Exit code: 0 valid, 1 invalid, 2 unknown.
 */
public final class QueueWorkloadMain {
    private QueueWorkloadMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: QueueWorkloadMain BOOTSTRAP OUTDIR [seconds] [assign|subscribe] [threads] "
                    + "[opsPerSecond] [seed]");
            System.exit(64);
        }
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        boolean subscribe = args.length > 3 && args[3].equals("subscribe");
        int threads = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        double rate = args.length > 5 ? Double.parseDouble(args[5]) : 100;
        long seed = args.length > 6 ? Long.parseLong(args[6]) : 1;
        QueueSettings settings = QueueSettings.defaults();
        if (subscribe) {
            settings = settings.withConsumer(QueueSettings.ConsumerMode.SUBSCRIBE, settings.isolationLevel());
        }
        QueueWorkloadConfig cfg = QueueWorkloadConfig.defaults(args[0], "faultline" + System.currentTimeMillis())
                .withSettings(settings).withRun(seed, Duration.ofSeconds(seconds), threads, rate);
        Path out = Path.of(args[1]);
        try (HistoryRecorder rec = HistoryRecorder.toFile(out.resolve("history.jsonl"), cfg.concurrency())) {
            QueueWorkload.Summary summary = QueueWorkload.run(cfg, rec);
            System.out.println(summary);
            CheckResult r = QueueWorkload.checker(cfg).check(rec.ops());
            System.out.println(r.verdict() + " " + r.counts());
            r.examples().forEach((c, xs) -> xs.forEach(x -> System.out.println("  " + c + ": " + x.explanation())));
            if (r.error() != null) {
                System.out.println("  " + r.error());
            }
            CheckResult total = new TotalQueueChecker().check(rec.ops());
            System.out.println("total-queue " + total.verdict() + " " + total.counts() + " " + total.stats());
            EdnWriter.write(rec.ops(), out.resolve("history.edn"));
            System.exit(r.verdict() == Verdict.VALID ? 0 : r.verdict() == Verdict.INVALID ? 1 : 2);
        }
    }
}
