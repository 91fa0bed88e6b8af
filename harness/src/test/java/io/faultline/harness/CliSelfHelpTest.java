package io.faultline.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The CLI helps itself: the closest name for a typo, examples under every --help, a bash completion script. */
class CliSelfHelpTest {
    @Test
    void aMistypedFlagGetsTheClosestOneOnOneLine() {
        assertSuggestion(CliTestSupport.run("test", "--seedz", "4"), "Unknown options: '--seedz'", "Did you mean --seed?");
        assertSuggestion(CliTestSupport.run("test", "--nemsis", "kill"), "'--nemsis'", "Did you mean --nemesis?");
        assertSuggestion(CliTestSupport.run("campaign", "--junitxml", "x.xml"), "'--junitxml'", "Did you mean --junit-xml?");
        assertSuggestion(CliTestSupport.run("shrink", "store/latest", "--bugdet=5"), "'--bugdet=5'", "Did you mean --budget?");
        assertSuggestion(CliTestSupport.run("tset"), "'tset'", "Did you mean test?");
        assertTrue(CliTestSupport.run("test", "--seedz", "4").err().contains("(see: faultline test --help)"));
    }

    @Test
    void aWordLikeNoFlagGetsNoSuggestion() {
        CliTestSupport.CliResult r = CliTestSupport.run("test", "--xyzzy-plugh", "1");
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(!r.err().contains("Did you mean"), r.err());
    }

    private static void assertSuggestion(CliTestSupport.CliResult r, String error, String suggestion) {
        assertEquals(FaultlineCli.EXIT_UNKNOWN_OR_ERROR, r.exitCode());
        String err = r.err().strip();
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertTrue(err.startsWith("faultline: ") && err.contains(error), err);
        assertTrue(err.contains(suggestion), "expected '" + suggestion + "' in: " + err);
    }

    @Test
    void closestIsAnEditDistanceNotAPrefixList() {
        assertEquals(1, CliHelp.distance("--sedd", "--seed"));
        assertEquals(1, CliHelp.distance("--seedz", "--seed"));
        assertEquals(0, CliHelp.distance("doctor", "doctor"));
        assertEquals(3, CliHelp.distance("kitten", "sitting"));
    }

    @Test
    void everySubcommandHelpEndsWithExamples() {
        for (String sub : FaultlineCli.commandLine().getSubcommands().keySet()) {
            String help = CliTestSupport.run(sub, "--help").out().strip();
            int examples = help.lastIndexOf("Examples:");
            assertTrue(examples > 0, sub + " --help has no examples:\n" + help);
            long lines = help.substring(examples).lines().skip(1).filter(l -> l.startsWith("  ") && l.contains("bin/faultline " + sub)).count();
            assertTrue(lines >= 2 && lines <= 3, sub + ": " + help.substring(examples));
            assertEquals(lines, help.substring(examples).lines().count() - 1, "examples are the last lines: " + help);
        }
    }

    @Test
    void theTopLevelHelpEndsWithAFirstRun() {
        String help = CliTestSupport.run("--help").out().strip();
        assertTrue(help.endsWith("Examples:\n  bin/faultline doctor\n  bin/faultline test\n"
                + "  bin/faultline analyze store/latest"), help);
    }

    @Test
    void completionIsABashScriptCoveringEverySubcommand(@TempDir Path dir) throws Exception {
        CliTestSupport.CliResult r = CliTestSupport.run("completion");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("complete -F _complete_faultline"), "a bash `complete` registration");
        for (String sub : FaultlineCli.commandLine().getSubcommands().keySet()) {
            assertTrue(r.out().contains(sub), "completion lacks " + sub);
        }
        assertTrue(r.out().contains("--nemesis-interval"), "subcommand flags are completed");
        Path script = dir.resolve("faultline-completion.bash");
        Files.writeString(script, r.out());
        Process bash = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
        assertTrue(bash.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, bash.exitValue(), new String(bash.getInputStream().readAllBytes()));
    }
}
