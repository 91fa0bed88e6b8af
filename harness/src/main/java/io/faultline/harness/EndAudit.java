package io.faultline.harness;

import io.faultline.harness.audit.ApiAudit;
import io.faultline.harness.audit.TopicLifecycleAudit;
import io.faultline.harness.recovery.RecoveryTracker;
import io.faultline.results.RunDir;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.FutureTask;

/**
 * The read-only audit at a run's quiet end, of the queue workloads on the current client line: the APIs besides
 * fetching against the partitions the run read in full (ApiAudit), and the topic lifecycle on scratch topics of its
 * own (TopicLifecycleAudit). The lifecycle part mostly waits for metadata to spread and touches nothing the workload
 * uses, so it starts with the final drain and the run's end does not wait for it after the drain. One per run; the
 * result goes to audit.json for the check.
 */
final class EndAudit {
    /** How long the audit may spend reading the workload's partitions in full. */
    static final Duration API_BUDGET = Duration.ofSeconds(30);
    /** How long one step of the topic lifecycle audit may wait for the cluster to show what it accepted. */
    static final Duration LIFECYCLE_WAIT = Duration.ofSeconds(20);

    private final TestConfig config;
    private final RunLog log;
    private final int maxWritesPerKey;
    private final boolean applies;
    private FutureTask<TopicLifecycleAudit.Result> lifecycle;
    private volatile long lifecycleNanos;

    /** {@code quietEnd}: the run is long enough to end quietly, where the audit runs. */
    EndAudit(TestConfig config, RunLog log, int maxWritesPerKey, boolean quietEnd) {
        this.config = config;
        this.log = log;
        this.maxWritesPerKey = maxWritesPerKey;
        boolean queue = "queue".equals(config.workload()) || NightlyMix.WORKLOAD.equals(config.workload());
        boolean current = Suts.clientLine(config.sut()) == io.faultline.kafkacompat.KafkaClientLine.CURRENT;
        this.applies = quietEnd && queue && current;
        this.committedOnly = quietEnd && current && NightlyMix.TXN_WORKLOAD.equals(config.workload())
                && Suts.hasTransactionalProtocol(config.sut());
    }

    /** The transactional queue gets the read_committed reads and seeks only (ApiAudit.runCommitted). */
    private final boolean committedOnly;

    /** Starts the lifecycle audit on a thread of its own (once; nothing when the run does not audit). */
    synchronized void startLifecycle(String bootstrap, String topicPrefix) {
        if (!applies || lifecycle != null) return;
        long started = System.nanoTime();
        lifecycle = new FutureTask<>(() -> {
            try {
                return TopicLifecycleAudit.run(bootstrap, topicPrefix, (short) config.replicationFactor(), config.seed(),
                        LIFECYCLE_WAIT);
            } finally {
                lifecycleNanos = System.nanoTime() - started;
            }
        });
        Thread thread = new Thread(lifecycle, "lifecycle-audit");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Reads and looks up the queue's key partitions the recovery check saw ({@code recoverySubjects}), waits for the
     * lifecycle audit (starting it if the drain did not), and writes audit.json.
     */
    void run(RunDir run, String bootstrap, String topicPrefix, Collection<String> recoverySubjects) throws Exception {
        if (committedOnly) {
            var report = ApiAudit.runCommitted(bootstrap, keyPartitions(topicPrefix, recoverySubjects), config.seed(), API_BUDGET);
            StoredRun.JSON.writeValue(run.dir().resolve(ApiAudit.Report.FILE).toFile(), report);
            log.line("audit: " + report.partitionsRead() + " partitions read in full (read_committed), " + report.seeks()
                    + " seek reads, " + report.findings().size() + " findings"
                    + (report.notes().isEmpty() ? "" : " (" + String.join("; ", report.notes()) + ")"));
            return;
        }
        if (!applies) return;
        startLifecycle(bootstrap, topicPrefix);
        long started = System.nanoTime();
        var report = ApiAudit.run(bootstrap, keyPartitions(topicPrefix, recoverySubjects), Workloads.queueTopicConfigs(config),
                Workloads.queueConfig(config, topicPrefix, maxWritesPerKey).groupId(),
                ("all".equals(config.acks()) || "-1".equals(config.acks())) && !config.uncleanInEffect(), config.seed(), API_BUDGET);
        long apiNanos = System.nanoTime() - started;
        FutureTask<TopicLifecycleAudit.Result> task;
        synchronized (this) {
            task = lifecycle;
        }
        var lifecycleResult = task.get();
        report = report.with(lifecycleResult);
        log.line(String.format("audit took %.1f s after the drain: API reads %.1f s; topic lifecycle %.1f s from the"
                + " drain's start (side by side: %s)", (System.nanoTime() - started) / 1e9, apiNanos / 1e9,
                lifecycleNanos / 1e9, lifecycleResult.seconds()));
        StoredRun.JSON.writeValue(run.dir().resolve(ApiAudit.Report.FILE).toFile(), report);
        log.line("audit: " + report.partitionsRead() + " partitions read in full, " + report.lookups() + " time lookups, " + report.seeks() + " seek reads, "
                + report.configsChecked() + " topics' configs, the group's listing, " + report.lifecycleSteps()
                + " lifecycle steps, " + report.findings().size() + " findings"
                + (report.notes().isEmpty() ? "" : " (" + String.join("; ", report.notes()) + ")"));
    }

    /** The queue's key topics' partitions (prefix-K) among the recovery check's subjects, not what runs beside them. */
    static List<TopicPartition> keyPartitions(String topicPrefix, Collection<String> recoverySubjects) {
        List<TopicPartition> out = new ArrayList<>();
        for (String subject : recoverySubjects) {
            if (!subject.startsWith(RecoveryTracker.PARTITION_PREFIX + topicPrefix + "-")) continue;
            String tp = subject.substring(RecoveryTracker.PARTITION_PREFIX.length());
            int dash = tp.lastIndexOf('-');
            String topic = tp.substring(0, dash);
            if (!topic.substring(topicPrefix.length() + 1).matches("[0-9]+")) continue;
            out.add(new TopicPartition(topic, Integer.parseInt(tp.substring(dash + 1))));
        }
        return out;
    }
}
