package io.faultline.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deployment files in deploy/ parse (YAML), every bin/faultline command in them parses with the CLI as it is
 * (flags that exist, values it accepts, a campaign matrix that validates), each shards with the index its platform
 * gives, and each ends in a merge.
 */
class ShardManifestsTest {
    private static final Path DEPLOY = projectRoot().resolve("deploy");
    private static final YAMLMapper YAML = new YAMLMapper();
    /** A faultline invocation in a script: the launcher's path or variable, the command, the rest of the line. */
    private static final Pattern INVOCATION = Pattern.compile("(?:bin/faultline|\"\\$FAULTLINE\")\\s+([a-z]+)([^\\n]*)");

    @Test
    void kubernetesIndexedJobShardsByCompletionIndexAndMerges() throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(DEPLOY.resolve("kubernetes/faultline-campaign.yaml").toFile())) {
            it.forEachRemaining(docs::add);
        }
        JsonNode shards = docs.stream().filter(d -> d.path("metadata").path("name").asText().equals("faultline-shards"))
                .findFirst().orElseThrow();
        assertEquals("Job", shards.path("kind").asText());
        assertEquals("Indexed", shards.path("spec").path("completionMode").asText());
        int n = shards.path("spec").path("completions").asInt();
        assertTrue(shards.path("spec").path("template").path("spec").path("hostNetwork").asBoolean(),
                "the harness must reach the engine's bridge networks");
        String script = shards.path("spec").path("template").path("spec").path("containers").get(0).path("args").get(0).asText();
        List<List<String>> commands = commands(script, Map.of("SHARDS", Integer.toString(n)));
        assertEquals(List.of("campaign"), commands.stream().map(c -> c.get(0)).toList());
        assertShardFlag(commands.get(0), "$JOB_COMPLETION_INDEX/$SHARDS", script, n);

        String merge = docs.stream().filter(d -> d.path("metadata").path("name").asText().equals("faultline-merge"))
                .findFirst().orElseThrow().path("spec").path("template").path("spec").path("containers").get(0)
                .path("args").get(0).asText();
        assertEquals(List.of("merge"), commands(merge, Map.of()).stream().map(c -> c.get(0)).toList());
    }

    @Test
    void githubActionsMatrixShardsByMatrixIndexAndMerges() throws IOException {
        JsonNode wf = YAML.readTree(DEPLOY.resolve("github-actions/faultline-campaign.yml").toFile());
        JsonNode matrix = wf.path("jobs").path("shard").path("strategy").path("matrix").path("shard");
        List<Integer> indexes = new ArrayList<>();
        matrix.forEach(i -> indexes.add(i.asInt()));
        String run = runScripts(wf.path("jobs").path("shard"));
        List<List<String>> commands = commands(run, Map.of());
        assertEquals(List.of("campaign"), commands.stream().map(c -> c.get(0)).toList());
        int n = assertShardFlag(commands.get(0), "${{ matrix.shard }}/4", run, -1);
        assertEquals(new Shard(0, 1).points(n), indexes, "matrix.shard lists 0..N-1");
        assertEquals("shard", wf.path("jobs").path("merge").path("needs").asText());
        assertEquals(List.of("merge"), commands(runScripts(wf.path("jobs").path("merge")), Map.of()).stream()
                .map(c -> c.get(0)).toList());
    }

    @Test
    void slurmArrayShardsByTaskIdAndMergesAfterEveryTask() throws IOException {
        String shards = Files.readString(DEPLOY.resolve("slurm/faultline-shards.sbatch"));
        Matcher array = Pattern.compile("#SBATCH --array=0-(\\d+)\\n").matcher(shards);
        assertTrue(array.find(), "a 0-based array");
        int n = Integer.parseInt(array.group(1)) + 1;
        assertTrue(shards.contains("SHARDS=${SHARDS:-" + n + "}"), "SHARDS defaults to the array's size");
        List<List<String>> commands = commands(shards, Map.of("SHARDS", Integer.toString(n)));
        assertEquals(List.of("campaign"), commands.stream().map(c -> c.get(0)).toList());
        assertShardFlag(commands.get(0), "$SLURM_ARRAY_TASK_ID/$SHARDS", shards, n);
        String merge = Files.readString(DEPLOY.resolve("slurm/faultline-merge.sbatch"));
        assertEquals(List.of("merge"), commands(merge, Map.of()).stream().map(c -> c.get(0)).toList());
        assertTrue(Files.readString(DEPLOY.resolve("slurm/submit.sh")).contains("--dependency=\"afterany:"),
                "the merge waits for every task, failed ones too");
    }

    /** The --shard value as written is the platform's index over N; returns N. */
    private static int assertShardFlag(List<String> command, String written, String script, int expectedN) {
        assertTrue(script.contains("--shard \"" + written + "\""), "--shard " + written + " in\n" + script);
        int i = command.indexOf("--shard");
        Shard parsed = Shard.parse(command.get(i + 1));
        if (expectedN > 0) assertEquals(expectedN, parsed.count());
        assertTrue(command.contains("--seed"), "every shard needs the same --seed");
        return parsed.count();
    }

    private static String runScripts(JsonNode job) {
        StringBuilder b = new StringBuilder();
        job.path("steps").forEach(s -> b.append(s.path("run").asText("")).append('\n'));
        return b.toString();
    }

    /**
     * Every faultline invocation in a shell script, its variables given sample values, parsed by the CLI itself
     * (an unknown flag or bad value throws); a campaign's matrix is also built, so its values validate.
     */
    static List<List<String>> commands(String script, Map<String, String> vars) {
        String joined = script.replace("\\\n", " ");
        List<List<String>> out = new ArrayList<>();
        Matcher m = INVOCATION.matcher(joined);
        while (m.find()) {
            String line = m.group(1) + m.group(2).split("\\|\\||&&|;|\\s\\|\\s")[0];
            List<String> tokens = tokens(substitute(line, vars));
            CommandLine.ParseResult parsed = FaultlineCli.commandLine().parseArgs(tokens.toArray(String[]::new));
            assertTrue(parsed.hasSubcommand(), line);
            Object command = parsed.subcommand().commandSpec().userObject();
            if (command instanceof CampaignCommand c) assertFalse(c.configurations(7).isEmpty());
            out.add(tokens);
        }
        return out;
    }

    /** Sample values: shard indexes 0, seeds a number, N as the file says, anything else a path. */
    private static String substitute(String s, Map<String, String> vars) {
        s = s.replace("${{ matrix.shard }}", "0").replace("${{ github.run_id }}", "12345");
        Matcher m = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)}?").matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String value = switch (name) {
                case "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID" -> "0";
                case "SEED", "CAMPAIGN_SEED" -> "7";
                default -> vars.getOrDefault(name, "/tmp/" + name.toLowerCase());
            };
            m.appendReplacement(b, Matcher.quoteReplacement(value));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** Whitespace-separated words; double quotes group and are removed. */
    private static List<String> tokens(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false, any = false;
        for (char ch : s.toCharArray()) {
            if (ch == '"') {
                quoted = !quoted;
                any = true;
            } else if (Character.isWhitespace(ch) && !quoted) {
                if (any) out.add(cur.toString());
                cur.setLength(0);
                any = false;
            } else {
                cur.append(ch);
                any = true;
            }
        }
        if (any) out.add(cur.toString());
        return out;
    }

    private static Path projectRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("deploy")) && Files.isRegularFile(dir.resolve("mvnw"))) return dir;
        }
        throw new IllegalStateException("deploy/ not found above " + Path.of("").toAbsolutePath());
    }
}
