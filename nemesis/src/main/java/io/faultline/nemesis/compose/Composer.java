package io.faultline.nemesis.compose;

import io.faultline.checker.observe.CoverageMap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Plans a run's compositions: a pure function of the options, the seed and (guided) the coverage map the run starts
 * from, so the plan can be printed, stored with the run and made again for a replay. Between compositions the
 * cluster is left alone for a healthy window, sized so that about {@code density} of the run is under faults and
 * never shorter than {@code minHealthyMillis}.
 */
public final class Composer {
    private Composer() {}

    /**
     * @param kinds            the compositions to draw from
     * @param partitions       how many workload partitions roles may bind to (at least 1)
     * @param shape            hold times, broker session, clock and link faults available
     * @param density          share of the run under faults, in (0, 1]
     * @param minHealthyMillis the shortest healthy window
     * @param spiceChance      chance that a composition also skews a clock (when clocks are available)
     */
    public record Options(List<CompositionKind> kinds, int partitions, CompositionKind.Shape shape, double density,
                          long minHealthyMillis, double spiceChance) {
        public Options {
            kinds = List.copyOf(kinds.stream().filter(k -> k.possibleWith(shape)).toList());
            if (kinds.isEmpty()) throw new IllegalArgumentException("no composition can run with these faults");
            if (partitions < 1) throw new IllegalArgumentException("at least one partition");
            if (!(density > 0 && density <= 1)) throw new IllegalArgumentException("--fault-density must be in (0, 1], got " + density);
            if (minHealthyMillis < 0) throw new IllegalArgumentException("--healthy-window must be at least 0");
        }
    }

    /** A random plan: each composition drawn uniformly. */
    public static List<Composition> plan(Options options, long seed, long durationMillis) {
        return plan(options, seed, durationMillis, null);
    }

    /**
     * A plan for {@code durationMillis}; with a coverage map, each composition is drawn with {@link #weights} (and the
     * map's counts are bumped for the chosen one's aims, on a copy, so one run does not pick the same thing over and
     * over).
     */
    public static List<Composition> plan(Options options, long seed, long durationMillis, CoverageMap coverage) {
        Random r = new Random(seed);
        Map<String, Long> virtual = new HashMap<>();
        List<Composition> out = new ArrayList<>();
        long t = healthy(r, options, options.shape().holdMillis());
        for (int i = 0; ; i++) {
            CompositionKind kind;
            String choice;
            if (coverage == null) {
                kind = options.kinds().get(r.nextInt(options.kinds().size()));
                choice = "random";
            } else {
                Map<CompositionKind, Double> w = weights(options.kinds(), coverage, virtual);
                kind = draw(w, r);
                choice = "guided " + describe(w);
                for (String aim : kind.aims()) virtual.merge(aim, 1L, Long::sum);
            }
            int partition = r.nextInt(options.partitions());
            List<Step> steps = new ArrayList<>(kind.steps(r, options.shape()));
            if (options.shape().clock() && kind != CompositionKind.SKEWED_SLOW_LEADER
                    && kind != CompositionKind.MINORITY_OUTAGE && r.nextDouble() < options.spiceChance()) {
                Role who = Role.values()[r.nextInt(Role.values().length)];
                steps.add(0, new Step.Skew(who == Role.FOLLOWERS ? Role.FOLLOWER_1 : who, CompositionKind.skew(r)));
                steps.add(new Step.ResetClocks());
            }
            Composition c = new Composition(i, t, kind, partition, steps, choice);
            if (t + c.lengthMillis() > durationMillis) break;
            out.add(c);
            t += c.lengthMillis() + healthy(r, options, c.lengthMillis());
        }
        return out;
    }

    /** The healthy window after a composition this long: density's share, at least the minimum, ± half. */
    private static long healthy(Random r, Options o, long faultedMillis) {
        double mean = Math.max(o.minHealthyMillis(), faultedMillis * (1 - o.density()) / o.density());
        return Math.max(o.minHealthyMillis(), (long) (mean / 2 + r.nextDouble() * mean));
    }

    /**
     * How much each composition is worth trying next (Mallory's idea over metadata states): the rarity of the
     * transitions it aims at ({@code 1/(1+seen)} each, averaged; never-seen ones count fully), how often its past runs
     * found n-grams nobody had seen, and an exploration bonus that fades as it is tried. Never zero, so every
     * composition keeps a chance.
     */
    public static Map<CompositionKind, Double> weights(List<CompositionKind> kinds, CoverageMap coverage, Map<String, Long> virtual) {
        Map<CompositionKind, Double> out = new java.util.LinkedHashMap<>();
        long total = coverage.totalTries();
        for (CompositionKind k : kinds) {
            double rarity = k.aims().stream().mapToDouble(a -> 1.0 / (1 + coverage.count(a) + virtual.getOrDefault(a, 0L))).average().orElse(0);
            var stats = coverage.composition(k.id());
            double found = stats.tries() == 0 ? 1 : Math.min(1, (double) stats.discoveries() / stats.tries());
            double explore = stats.tries() == 0 ? 1 : Math.sqrt(Math.log(1 + total) / stats.tries()) / 2;
            double score = 0.05 + rarity + found + explore;
            out.put(k, score * score); // squared: a clear preference, still no certainty
        }
        return out;
    }

    static CompositionKind draw(Map<CompositionKind, Double> weights, Random r) {
        double sum = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        double u = r.nextDouble() * sum;
        CompositionKind last = null;
        for (var e : weights.entrySet()) {
            last = e.getKey();
            u -= e.getValue();
            if (u < 0) return last;
        }
        return last;
    }

    private static String describe(Map<CompositionKind, Double> w) {
        double sum = w.values().stream().mapToDouble(Double::doubleValue).sum();
        List<String> parts = new ArrayList<>();
        w.entrySet().stream().sorted(Map.Entry.<CompositionKind, Double>comparingByValue().reversed()).limit(3)
                .forEach(e -> parts.add(e.getKey().id() + String.format(Locale.ROOT, " %.0f%%", 100 * e.getValue() / sum)));
        return String.join(", ", parts);
    }
}
