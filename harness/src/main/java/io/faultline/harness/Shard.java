package io.faultline.harness;

import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

/**
 * `--shard I/N`: the part of a matrix one process runs. I is 0-based (0 ≤ I &lt; N), as Kubernetes'
 * JOB_COMPLETION_INDEX and a Slurm array declared {@code --array=0-(N-1)}. Point k of the matrix belongs to shard
 * {@code k mod N}: round robin rather than blocks, because a matrix lists its points grouped by fault mix, and blocks
 * would give one shard all the slow mixes. N shards with the same arguments therefore cover every point exactly once.
 */
record Shard(int index, int count) {
    /** The whole matrix: what a campaign without --shard runs. */
    static final Shard WHOLE = new Shard(0, 1);

    Shard {
        if (count < 1) throw new IllegalArgumentException("--shard I/N needs N >= 1, got " + index + "/" + count);
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("--shard I/N is 0-based: I must be 0.." + (count - 1) + ", got "
                    + index + "/" + count);
        }
    }

    /** Parses "I/N"; anything else is one line saying what is expected. */
    static Shard parse(String text) {
        String t = text == null ? "" : text.strip();
        int slash = t.indexOf('/');
        if (slash < 0) throw new IllegalArgumentException("--shard must be I/N (0-based, e.g. 0/4 .. 3/4), got '" + text + "'");
        try {
            return new Shard(Integer.parseInt(t.substring(0, slash).strip()), Integer.parseInt(t.substring(slash + 1).strip()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--shard must be I/N with whole numbers (0-based, e.g. 0/4 .. 3/4), got '"
                    + text + "'");
        }
    }

    boolean owns(int point) {
        return Math.floorMod(point, count) == index;
    }

    /** The points of a matrix of {@code total} this shard runs, in matrix order. */
    List<Integer> points(int total) {
        List<Integer> out = new ArrayList<>();
        for (int k = index; k < total; k += count) out.add(k);
        return out;
    }

    boolean isWhole() {
        return count == 1;
    }

    @Override
    public String toString() {
        return index + "/" + count;
    }

    /** picocli: a bad value is the option's one-line error, before anything runs. */
    static final class Converter implements CommandLine.ITypeConverter<Shard> {
        @Override
        public Shard convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
