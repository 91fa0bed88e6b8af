package io.faultline.harness;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The user guide stays true to the CLI: every `bin/faultline ...` line in README.md and docs/*.md (code blocks and
 * inline code) parses with the current command line (parsed, not run), every example in a --help footer too, and
 * every relative link points at a file that exists.
 */
class DocsCheckTest {
    /**
     * Guide pages written on other branches at the same time; the index links them already. Absent ones are
     * tolerated until those branches are merged, present ones are checked like every other page. Drop after merging.
     */
    static final Set<String> PAGES_FROM_OTHER_BRANCHES =
            Set.of();

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");
    private static final String LAUNCHER = "bin/faultline";

    static Path projectRoot() {
        String root = System.getProperty("faultline.projectRoot");
        Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("mvnw"))) dir = dir.getParent();
        if (dir == null) throw new IllegalStateException("project root not found");
        return dir;
    }

    static List<Path> guidePages() throws IOException {
        Path root = projectRoot();
        var pages = new ArrayList<Path>(List.of(root.resolve("README.md")));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** A command line found in a page: where, and the arguments after the launcher. */
    record Shown(String where, String text, List<String> args) {}

    /** Every launcher invocation in a Markdown text: lines of fenced code blocks and inline code spans. */
    static List<Shown> commandLines(String name, String markdown) {
        var found = new ArrayList<Shown>();
        String[] lines = markdown.split("\n", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                int first = i;
                var joined = new StringBuilder(line);
                while (joined.toString().endsWith("\\") && i + 1 < lines.length) {
                    joined.setLength(joined.length() - 1);
                    joined.append(' ').append(lines[++i].strip());
                }
                found.addAll(invocations(name + ":" + (first + 1), joined.toString()));
            } else {
                Matcher m = INLINE_CODE.matcher(line);
                while (m.find()) {
                    List<Shown> launched = invocations(name + ":" + (i + 1), m.group(1));
                    found.addAll(launched);
                    if (launched.isEmpty()) found.addAll(bareSubcommand(name + ":" + (i + 1), m.group(1)));
                }
            }
        }
        return found;
    }

    /** A word standing for a value the reader fills in: I/N, DIR, URL,…, FILE. */
    private static final Pattern PLACEHOLDER = Pattern.compile(".*(?:\\b[A-Z]{1,}(?:/[A-Z]+)?\\b|…).*");

    /**
     * Inline code that shows a command without the launcher, as the README's tables do (`compare --sut a,b --seed 3`):
     * a subcommand's name followed by flags, with concrete values (two words such as `replay --schedule` name an option
     * in prose, and spans with placeholders such as I/N are prose too).
     */
    private static List<Shown> bareSubcommand(String where, String code) {
        List<String> words = shellWords(code);
        if (words.size() < 3 || !FaultlineCli.commandLine().getSubcommands().containsKey(words.get(0))
                || words.stream().noneMatch(w -> w.startsWith("--"))
                || words.stream().anyMatch(w -> PLACEHOLDER.matcher(w).matches())) {
            return List.of();
        }
        return List.of(new Shown(where, code.strip(), words));
    }

    private static List<Shown> invocations(String where, String code) {
        var found = new ArrayList<Shown>();
        int at = code.indexOf(LAUNCHER);
        while (at >= 0) {
            int end = at + LAUNCHER.length();
            boolean whole = end == code.length() || " ;)|&".indexOf(code.charAt(end)) >= 0;
            if (whole) found.add(new Shown(where, code.substring(at).strip(), shellWords(code.substring(end))));
            at = code.indexOf(LAUNCHER, end);
        }
        return found;
    }

    /** Words up to the end of the simple command (; | & ) < > or a comment), with shell quoting removed. */
    static List<String> shellWords(String s) {
        var words = new ArrayList<String>();
        var word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                else word.append(c);
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) words.add(word.toString());
                word.setLength(0);
                inWord = false;
            } else if (";|&)<>".indexOf(c) >= 0 || (c == '#' && !inWord)) {
                break;
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) words.add(word.toString());
        return words;
    }

    /** null when the arguments parse with the current CLI, else picocli's message. */
    static String parseError(List<String> args) {
        try {
            FaultlineCli.commandLine().parseArgs(args.toArray(String[]::new));
            return null;
        } catch (CommandLine.ParameterException e) {
            return e.getMessage();
        }
    }

    @Test
    void everyCommandLineInTheGuideParses() throws IOException {
        Path root = projectRoot();
        var shown = new ArrayList<Shown>();
        for (Path page : guidePages()) {
            shown.addAll(commandLines(root.relativize(page).toString(), Files.readString(page)));
        }
        // The README alone shows the quick start and the tour; far fewer means the extraction broke.
        assertTrue(shown.size() >= 40, "only " + shown.size() + " command lines found");
        var broken = new ArrayList<String>();
        for (Shown s : shown) {
            String error = parseError(s.args());
            if (error != null) broken.add(s.where() + ": `" + s.text() + "`: " + error);
        }
        assertEquals(List.of(), broken, "command lines in the guide that the CLI does not accept");
    }

    @Test
    void everyHelpExampleParses() {
        var broken = new ArrayList<String>();
        CliHelp.EXAMPLES.forEach((command, lines) -> {
            assertTrue(lines.size() >= 2 && lines.size() <= 3, command + ": two or three examples");
            for (String line : lines) {
                if (line.length() > 76) broken.add(line + ": longer than 76 characters (help wraps it)");
                List<Shown> found = invocations(command, line);
                assertEquals(1, found.size(), line);
                String error = parseError(found.get(0).args());
                if (error != null) broken.add(line + ": " + error);
                if (!found.get(0).args().isEmpty() && !found.get(0).args().get(0).equals(command)) {
                    broken.add(line + ": not an example of " + command);
                }
            }
        });
        for (String line : CliHelp.ROOT_EXAMPLES) {
            String error = parseError(invocations("faultline", line).get(0).args());
            if (error != null) broken.add(line + ": " + error);
        }
        assertEquals(List.of(), broken);
        assertEquals(FaultlineCli.commandLine().getSubcommands().keySet(), CliHelp.EXAMPLES.keySet(),
                "every subcommand has examples");
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        Path root = projectRoot();
        var broken = new ArrayList<String>();
        int links = 0;
        for (Path page : guidePages()) {
            Matcher m = LINK.matcher(Files.readString(page));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z][a-z0-9+.-]*:.*") || target.startsWith("#")) continue; // a URL or an anchor
                links++;
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                Path resolved = page.getParent().resolve(file).normalize();
                String fromRoot = root.relativize(resolved).toString();
                if (!Files.exists(resolved) && !PAGES_FROM_OTHER_BRANCHES.contains(fromRoot)) {
                    broken.add(root.relativize(page) + ": " + target);
                }
            }
        }
        assertTrue(links >= 20, "only " + links + " relative links found");
        assertEquals(List.of(), broken, "relative links to files that do not exist");
    }

    @Test
    void theCheckCatchesABadCommandLineAndReadsShellSyntax() {
        List<Shown> shown = commandLines("x.md", String.join("\n",
                "Run `bin/faultline test --seedz 4` or:",
                "```",
                "FAULTLINE_BASE_IMAGE=x bin/faultline campaign --name n \\",
                "    --acks 1,all   # a comment",
                "bin/faultline --help; bin/faultline analyze 'store/a b'",
                "```"));
        assertEquals(4, shown.size(), shown.toString());
        assertTrue(parseError(shown.get(0).args()).contains("--seedz"));
        assertEquals(List.of("campaign", "--name", "n", "--acks", "1,all"), shown.get(1).args());
        assertEquals(null, parseError(shown.get(1).args()));
        assertEquals(List.of("--help"), shown.get(2).args());
        assertEquals(List.of("analyze", "store/a b"), shown.get(3).args());
        assertFalse(commandLines("y.md", "the launcher `bin/faultlinex` is not it").size() > 0);
        List<Shown> bare = commandLines("z.md", "| `compare --sut a,b --seedd 3` | `campaign --shard I/N` | `--seed 3` |");
        assertEquals(1, bare.size(), "a bare subcommand with concrete flags is a command line; placeholders are prose");
        assertTrue(parseError(bare.get(0).args()).contains("--seedd"));
    }
}
