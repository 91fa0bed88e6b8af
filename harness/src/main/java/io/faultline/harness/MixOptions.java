package io.faultline.harness;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The flags that choose a run's mix of workload shape and faults (`test` and `campaign`). */
final class MixOptions {
    @Option(names = "--mix", description = "random: the --nemesis packages in Jepsen's rhythm; nightly: the nightly queue"
            + " and role-aware fault compositions (default: random for test, nightly for campaign unless --nemesis is given)")
    String mix;

    @Option(names = "--guided", description = "nightly mix: plan the compositions from the coverage map of earlier runs,"
            + " preferring transitions and sequences not yet seen")
    boolean guided;

    @Option(names = "--fault-density", description = "nightly mix: share of the run under faults, in (0, 1] (default: ${DEFAULT-VALUE})")
    double density = 0.5;

    @Option(names = "--healthy-window", description = "nightly mix: shortest healthy window between compositions, seconds (default: ${DEFAULT-VALUE})")
    int healthyWindow = 3;

    @Option(names = "--compositions", split = ",", description = "nightly mix: the compositions to draw from (default: all)")
    List<String> compositions;

    @Option(names = "--links", arity = "1", description = "nightly mix: route inter-node traffic through link proxies so"
            + " compositions can slow links (default: ${DEFAULT-VALUE})")
    boolean links = true;

    @Option(names = "--producer-prop", paramLabel = "KEY=VALUE", description = "A producer setting of the queue workloads"
            + " (repeatable; e.g. linger.ms=5, batch.size=512; acks, idempotence, retries and max.in.flight are the"
            + " checker's and cannot be set here)")
    Map<String, String> producerProps = new LinkedHashMap<>();

    @Option(names = "--coverage", paramLabel = "FILE", description = "test --mix nightly: the coverage map to read and"
            + " extend (default: STORE/coverage-SUT.json; a campaign keeps its own in its folder)")
    Path coverage;

    /** Whether the nightly mix runs, given the command's default and whether --nemesis was named. */
    boolean nightly(boolean byDefault) {
        if (mix == null) {
            if (guided) return true;
            return byDefault;
        }
        return switch (mix) {
            case "nightly" -> true;
            case "random" -> {
                if (guided) throw new IllegalArgumentException("--guided plans the nightly mix's compositions: use --mix nightly");
                yield false;
            }
            default -> throw new IllegalArgumentException("--mix must be random or nightly, got " + mix);
        };
    }

    NightlyMix.Spec spec() {
        return new NightlyMix.Spec(guided, density, healthyWindow,
                compositions == null ? NightlyMix.Spec.allCompositions() : compositions, links, null);
    }

    /** The configuration with --producer-prop applied (and, for the nightly mix, its workload and faults). */
    TestConfig apply(TestConfig base, boolean nightly) {
        TestConfig c = producerProps.isEmpty() ? base : base.withProducerProperties(producerProps);
        return nightly ? NightlyMix.configure(c, spec()) : c;
    }
}
