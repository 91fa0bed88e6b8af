package io.faultline.harness;

import io.faultline.results.Liveness;
import picocli.CommandLine.Option;

/** The recovery check's bounds (see docs/liveness.md). */
final class LivenessOptions {
    /**
     * 60 s: Apache Kafka with the harness's fast failure detection has every broker back and every ISR full within a
     * few seconds of the final heal (FACTS: rejoin in 3–5 s); a minute leaves a busy machine room. 256 KiB/s per node
     * is several times what either system logs under faults, and far below a replication livelock's flood.
     */
    static final Liveness.Bounds DEFAULT_BOUNDS = new Liveness.Bounds(60, 256 * 1024);

    @Option(names = "--recovery-bound", paramLabel = "SECONDS", description = "Seconds after the final heal by which every"
            + " broker must serve and every partition's ISR be full again (default: 60)")
    double recoveryBound = DEFAULT_BOUNDS.recoverySeconds();

    @Option(names = "--log-rate-limit", paramLabel = "BYTES_PER_SECOND", description = "Largest average rate at which a"
            + " node's logs may grow over the run (default: 262144)")
    long logRateLimit = DEFAULT_BOUNDS.logBytesPerSecond();

    Liveness.Bounds bounds() {
        if (!(recoveryBound > 0) || recoveryBound > 3600) {
            throw new IllegalArgumentException("--recovery-bound must be between 0 and 3600 seconds, got " + recoveryBound);
        }
        if (logRateLimit < 1) throw new IllegalArgumentException("--log-rate-limit must be at least 1 byte/s, got " + logRateLimit);
        return new Liveness.Bounds(recoveryBound, logRateLimit);
    }
}
