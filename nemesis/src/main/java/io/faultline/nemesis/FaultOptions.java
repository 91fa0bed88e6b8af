package io.faultline.nemesis;

import io.faultline.nemesis.ClusterView.PartitionRef;

import java.util.List;

/**
 * Knobs of the fault catalogue.
 *
 * @param primaries        partitions whose leaders faults may target (leader isolation, kill/pause primaries)
 * @param maxBumpMillis    largest clock bump; bumps are spread exponentially from a few ms up to this
 * @param strobePeriodMillis a full strobe cycle (each offset is held half of it)
 * @param strobeMillis     how long a strobe lasts
 * @param maxTruncateBytes largest segment tail cut
 * @param maxBitFlips      most bits flipped in one segment
 */
public record FaultOptions(List<PartitionRef> primaries, long maxBumpMillis, long strobePeriodMillis,
                           long strobeMillis, long maxTruncateBytes, int maxBitFlips) {
    public FaultOptions {
        primaries = List.copyOf(primaries);
        if (maxBumpMillis < 4 || maxTruncateBytes < 1 || maxBitFlips < 1) throw new IllegalArgumentException("bad limits");
    }

    public static FaultOptions defaults() {
        return new FaultOptions(List.of(), 300_000, 2_000, 10_000, 4096, 8);
    }

    public FaultOptions withPrimaries(List<PartitionRef> partitions) {
        return new FaultOptions(partitions, maxBumpMillis, strobePeriodMillis, strobeMillis, maxTruncateBytes, maxBitFlips);
    }

    public FaultOptions withStrobe(long periodMillis, long durationMillis) {
        return new FaultOptions(primaries, maxBumpMillis, periodMillis, durationMillis, maxTruncateBytes, maxBitFlips);
    }

    public FaultOptions withMaxBumpMillis(long max) {
        return new FaultOptions(primaries, max, strobePeriodMillis, strobeMillis, maxTruncateBytes, maxBitFlips);
    }
}
