package io.faultline.workloads.generator;

/**
 * An immutable random stream (SplitMix64). Generators are values, so their randomness must be a value too: read a
 * draw from {@code rng}, then carry {@code rng.advance()} into the next generator state. Same seed, same draws.
 */
public record Rng(long state) {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    public static Rng seeded(long seed) {
        return new Rng(seed);
    }

    /** 64 random bits for the current position. */
    public long bits() {
        long z = state + GOLDEN;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The stream after this position. */
    public Rng advance() {
        return new Rng(state + GOLDEN);
    }

    /** An independent stream, e.g. for a sub-generator (derived, so still deterministic). */
    public Rng split(long salt) {
        return new Rng(new Rng(state ^ (salt * 0xD1B54A32D192ED03L)).bits());
    }

    /** Uniform in [0, bound). */
    public int below(int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive");
        }
        return (int) Math.floorMod(bits() >>> 1, (long) bound);
    }

    /** Uniform in [0, 1). */
    public double unit() {
        return (bits() >>> 11) * 0x1.0p-53;
    }
}
