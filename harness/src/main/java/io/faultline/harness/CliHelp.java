package io.faultline.harness;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CLI helping itself: a few examples at the end of every subcommand's --help, and the closest known name for a
 * mistyped flag or subcommand. Kept apart from the commands so adding a flag never touches this file.
 */
final class CliHelp {
    private CliHelp() {}

    /**
     * Two or three runnable lines per subcommand, shown under "Examples:" (DocsCheckTest parses each). At most 76
     * characters each, so picocli's 80-column usage never wraps one.
     */
    static final Map<String, List<String>> EXAMPLES = examples();

    /** Under `faultline --help`: the first three commands of a newcomer. */
    static final List<String> ROOT_EXAMPLES = List.of(
            "bin/faultline doctor",
            "bin/faultline test",
            "bin/faultline analyze store/latest");

    private static Map<String, List<String>> examples() {
        var m = new LinkedHashMap<String, List<String>>();
        m.put("test", List.of(
                "bin/faultline test",
                "bin/faultline test --nemesis partition,kill,pause,clock --time-limit 120",
                "bin/faultline test --sut broker-impl --nodes 3 --nemesis kill --seed 42"));
        m.put("analyze", List.of(
                "bin/faultline analyze store/latest",
                "bin/faultline analyze store/queue/20261201T101500.000Z"));
        m.put("replay", List.of(
                "bin/faultline replay store/latest",
                "bin/faultline replay --schedule store/latest/shrunk-schedule.json"));
        m.put("campaign", List.of(
                "bin/faultline campaign --acks 1,all --min-isr 1,2 --time-limit 60",
                "bin/faultline campaign --mix nightly --guided --runs 4 --seed 7",
                "bin/faultline campaign --seed 7 --shard 0/2 --junit-xml out.xml"));
        m.put("serve", List.of(
                "bin/faultline serve",
                "bin/faultline serve --port 0 --store store"));
        m.put("shrink", List.of(
                "bin/faultline shrink store/latest",
                "bin/faultline shrink store/latest --budget 30 --out /tmp/smallest.json"));
        m.put("scenario", List.of(
                "bin/faultline scenario",
                "bin/faultline scenario acks-1-failover --sut broker-impl --seed 7",
                "bin/faultline scenario min-isr-1 --sut apache-kafka"));
        m.put("compare", List.of(
                "bin/faultline compare --sut apache-kafka,broker-impl --nodes 3 --seed 7",
                "bin/faultline compare --runs store/a/20261130T1620,store/b/20261130T1625"));
        m.put("bugs", List.of(
                "bin/faultline bugs --seeds 3",
                "bin/faultline bugs --seeds 2 --only read-past-hw,dedup-not-rebuilt",
                "bin/faultline bugs --only none --clean-seeds 3"));
        m.put("mutants", List.of(
                "bin/faultline mutants --list --count 10 --seed 7",
                "bin/faultline mutants --count 5 --runs 2 --time-limit 90 --seed 7",
                "bin/faultline mutants --mutant m60df2e50 --runs 1 --clean-runs 0"));
        m.put("doctor", List.of(
                "bin/faultline doctor",
                "bin/faultline doctor --store /var/lib/faultline/store"));
        m.put("versions", List.of(
                "bin/faultline versions --scenario kip-101-loss --versions 0.10.2.1,0.11.0.3",
                "bin/faultline versions --nemesis partition,kill --versions 2.0.1,2.1.1"));
        m.put("merge", List.of(
                "bin/faultline merge shard-0/store shard-1/store --store merged",
                "bin/faultline merge s0.tar.gz s1.tar.gz --junit-xml out.xml",
                "bin/faultline merge shard-0/store --allow-missing"));
        m.put("image", List.of(
                "bin/faultline image runner",
                "bin/faultline image --help"));
        m.put("completion", List.of(
                "bin/faultline completion > /etc/bash_completion.d/faultline",
                "source <(bin/faultline completion)"));
        return m;
    }

    /** Adds the examples as usage footers: the root's and each subcommand's. */
    static void addExamples(CommandLine root) {
        setFooter(root, ROOT_EXAMPLES);
        root.getSubcommands().forEach((name, sub) -> {
            List<String> lines = EXAMPLES.get(name);
            if (lines != null) setFooter(sub, lines);
        });
    }

    private static void setFooter(CommandLine command, List<String> lines) {
        var footer = new ArrayList<String>();
        footer.add("%nExamples:");
        for (String line : lines) footer.add("  " + line.replace("%", "%%"));
        command.getCommandSpec().usageMessage().footer(footer.toArray(String[]::new));
    }

    /** The known name closest to a mistyped one: an option of the command, or a subcommand of it. */
    static Optional<String> closest(CommandSpec spec, String typed) {
        String word = typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
        List<String> known = new ArrayList<>();
        if (word.startsWith("-")) {
            for (OptionSpec o : spec.options()) {
                if (!o.hidden()) known.addAll(List.of(o.names()));
            }
        } else {
            known.addAll(spec.subcommands().keySet());
        }
        // A typo is a few edits away; anything further is a different word, not worth suggesting.
        int limit = Math.max(2, word.length() / 3);
        return known.stream()
                .filter(k -> distance(word, k) <= limit || (word.length() >= 4 && k.startsWith(word)))
                .min(Comparator.comparingInt((String k) -> distance(word, k)).thenComparing(k -> k));
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
