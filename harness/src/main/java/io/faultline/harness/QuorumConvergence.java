package io.faultline.harness;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Example;
import io.faultline.checker.Verdict;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.common.errors.UnsupportedVersionException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The metadata quorum catches up at the quiet end ({@value #BEHIND}). A controller quorum can serve with a majority
 * while one voter, or a broker following the metadata log as an observer, never catches up: a Raft follower stuck
 * retrying, a broker left on old metadata. The data-plane checks see that only if the stuck node is asked at the wrong
 * moment. With the cluster idle (the end of a run of a minute or more), DescribeQuorum
 * ({@code kafka-metadata-quorum describe --replication}, KRaft only) is asked once for the leader's high watermark,
 * then again until every replica the leader reports has a log end at or past it, for at most {@link #BOUND}: one that
 * is still behind then is a finding. A replica whose log end the leader does not know (-1) is not judged; nor are
 * brokers without the API (ZooKeeper mode). Written to {@value #FILE}, judged by {@link #check}; never throws.
 */
final class QuorumConvergence {
    static final String FILE = "quorum.json", CHECKER = "metadata-quorum", BEHIND = "quorum-replica-behind";
    /** Both systems' controllers append and replicate within a second when idle (Kafka: a no-op every 500 ms). */
    static final Duration BOUND = Duration.ofSeconds(10);

    private QuorumConvergence() {}

    /** One replica as the quorum leader last reported it. */
    record Replica(int id, boolean voter, long logEndOffset) {}

    /**
     * @param highWatermark the leader's high watermark at the first ask, every replica's target
     * @param notJudged     why nothing was judged (no DescribeQuorum, no answer), else null
     */
    record Observation(int leaderId, long highWatermark, List<Replica> replicas, int asks, double seconds, String notJudged) {
        Observation {
            replicas = replicas == null ? List.of() : List.copyOf(replicas);
        }

        List<Replica> behind() {
            return replicas.stream().filter(r -> r.logEndOffset() >= 0 && r.logEndOffset() < highWatermark).toList();
        }
    }

    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    static Observation observe(String bootstrap, Sleeper sleeper) throws InterruptedException {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "faultline-quorum");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        long started = System.nanoTime();
        try (Admin admin = Admin.create(p)) {
            QuorumInfo first = admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS);
            long target = first.highWatermark();
            int asks = 1;
            QuorumInfo last = first;
            long deadline = started + BOUND.toNanos();
            while (!of(last, target, asks, started).behind().isEmpty() && System.nanoTime() < deadline) {
                sleeper.sleep(Duration.ofMillis(500));
                last = admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS);
                asks++;
            }
            return of(last, target, asks, started);
        } catch (ExecutionException e) {
            String why = e.getCause() instanceof UnsupportedVersionException
                    ? "the brokers do not answer DescribeQuorum (no KRaft quorum)" : "DescribeQuorum failed: " + e.getCause();
            return new Observation(-1, -1, List.of(), 0, seconds(started), why);
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            return new Observation(-1, -1, List.of(), 0, seconds(started), "DescribeQuorum failed: " + e);
        }
    }

    private static Observation of(QuorumInfo q, long target, int asks, long started) {
        List<Replica> replicas = new ArrayList<>();
        q.voters().forEach(v -> replicas.add(new Replica(v.replicaId(), true, v.logEndOffset())));
        q.observers().forEach(o -> replicas.add(new Replica(o.replicaId(), false, o.logEndOffset())));
        return new Observation(q.leaderId(), target, replicas, asks, seconds(started), null);
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }

    static void write(Path runDir, Observation o) throws IOException {
        StoredRun.JSON.writerWithDefaultPrettyPrinter().writeValue(runDir.resolve(FILE).toFile(), o);
    }

    /** The check from {@value #FILE}; null when the run made no observation or nothing could be judged. */
    static CheckResult check(Path runDir) {
        Path file = runDir.resolve(FILE);
        if (!Files.isRegularFile(file)) return null;
        try {
            return check(StoredRun.JSON.readValue(file.toFile(), Observation.class));
        } catch (IOException | RuntimeException e) {
            return CheckResult.failure(CHECKER, e);
        }
    }

    static CheckResult check(Observation o) {
        if (o.notJudged() != null) return null;
        Map<String, Object> stats = new TreeMap<>();
        stats.put("leader", o.leaderId());
        stats.put("high-watermark", o.highWatermark());
        stats.put("replicas", o.replicas().size());
        stats.put("asks", o.asks());
        List<Replica> behind = o.behind();
        if (behind.isEmpty()) return new CheckResult(CHECKER, Verdict.VALID, Map.of(), Set.of(), Map.of(), stats, null);
        List<Example> examples = new ArrayList<>();
        for (Replica r : behind) {
            examples.add(new Example(BEHIND, null, String.format(java.util.Locale.ROOT,
                    "%s %d: metadata log end %d, behind the quorum leader %d's high watermark %d of %.1f s earlier, on an"
                            + " idle cluster (%d asks)", r.voter() ? "voter" : "observer", r.id(), r.logEndOffset(),
                    o.leaderId(), o.highWatermark(), o.seconds(), o.asks()), List.of()));
        }
        return new CheckResult(CHECKER, Verdict.INVALID, Map.of(BEHIND, (long) examples.size()), Set.of(),
                Map.of(BEHIND, examples), stats, null);
    }
}
