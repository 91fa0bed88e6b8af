package io.faultline.workloads.topics;

import io.faultline.checker.Checker;
import io.faultline.workloads.Workload;
import io.faultline.workloads.generator.Gen;
import io.faultline.workloads.generator.Gens;

import java.time.Duration;
import java.util.List;

/**
 * Topic creation, deletion and CreatePartitions under faults, judged as linearizable objects ({@link TopicChecker}).
 * A few scratch topics ({@code prefix-topics-k}) keep coming and going and growing while the faults run; after the
 * heal and the recovery wait, one more topic is created and each is described once. A controller that loses an acknowledged creation, deletion or
 * growth across a failover, applies one twice, or whose brokers never learn where it led, shows as
 * {@code topic-nonlinearizable}. Nothing is written to these topics.
 */
public final class TopicWorkload {
    private TopicWorkload() {}

    public static Workload workload(String prefix, short replicationFactor, long seed, int keys, double opsPerSecond,
                                    Duration timeLimit, int clientTimeoutMs, List<Checker> checkers) {
        Workload.Setup setup = bootstrap -> Workload.Session.of(
                thread -> new TopicClient(bootstrap, prefix, replicationFactor, clientTimeoutMs), List.of(), () -> {});
        Gen g = TopicOps.random(seed, keys);
        if (opsPerSecond > 0) g = Gens.stagger((long) (1e9 / opsPerSecond), seed * 31 + 11, g);
        return new Workload("topics", setup, Gens.timeLimit(timeLimit.toNanos(), g), Workload.FinalReads.always(() -> TopicOps.finalCreate(keys), () -> TopicOps.finalReads(keys)), checkers);
    }
}
