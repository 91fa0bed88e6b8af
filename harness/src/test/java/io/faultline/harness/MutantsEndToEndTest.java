package io.faultline.harness;

import io.faultline.docker.DockerBacked;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.harness.mutants.Mutant;
import io.faultline.harness.mutants.MutantCatalog;
import io.faultline.harness.mutants.MutantJar;
import io.faultline.harness.mutants.MutationOperator;
import io.faultline.harness.mutants.UnitTests;
import io.faultline.results.MutantsPage;
import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One mutant end to end (-Pscenarios): drawn from the catalog, given to broker-impl's unit tests, its jar baked into
 * its own node image, one short run of a 3-node cluster under the nightly mix, and the page.
 */
@DockerBacked
class MutantsEndToEndTest {

    @Test
    @EnabledIfSystemProperty(named = "faultline.scenarios", matches = "true")
    void oneMutantRunsOnItsOwnImageUnderTheNightlyMix(@TempDir Path store) throws Exception {
        var command = new MutantsCommand();
        command.packages = List.of("group");
        var jars = command.jars();
        MutantCatalog catalog = MutantCatalog.of(jars.brokerJar(), jars.dependencies(), command.packageNames(),
                List.of(MutationOperator.REMOVE_VOID_CALL));
        Mutant mutant = catalog.select(2026, 1).get(0);
        Path jar = MutantJar.write(catalog, mutant, store.resolve("jars").resolve(mutant.id() + ".jar"));

        // its own image, tagged by content: a different tag from the unmutated broker's, the same on a second build
        String mutatedImage = new BrokerImpl(KafkaSettings.defaults(), jar).buildImage();
        assertNotEquals(new BrokerImpl(KafkaSettings.defaults()).buildImage(), mutatedImage);
        assertEquals(mutatedImage, new BrokerImpl(KafkaSettings.defaults(), jar).buildImage());

        Path root = Path.of(System.getProperty("faultline.projectRoot", "..")).toAbsolutePath().normalize();
        UnitTests tests = UnitTests.find(root, Duration.ofMinutes(5));
        MutantHunt.Plan plan = MutantHunt.plan(List.of(mutant), 1, 0, MutantHunt.Shape.defaults(20), 2026);
        var runStore = new RunStore(store);
        MutantsPage.Input score = MutantHunt.run(plan, m -> {
            UnitTests.Outcome o = tests.run(m, jar, jars.brokerJar(), store.resolve("jars"));
            return new MutantHunt.Prepared(jar, o.status().label(), o.detail());
        }, (c, j) -> new TestRunner(c, runStore, System.err, ComposedSchedule.factory(MutantHunt.spec(), null, s -> {}))
                .withBrokerJar(j).run(), System.err, "test", "one mutant", p -> {}, () -> false);

        MutantsPage.Mutant row = score.mutants().get(0);
        assertTrue(List.of("killed", "survived", "timed out").contains(row.unitTests()), row.unitTests() + ": " + row.unitDetail());
        assertEquals(1, row.attempts().size());
        var attempt = row.attempts().get(0);
        assertNotNull(attempt.runDir(), "the run kept its folder");
        Path runDir = Path.of(attempt.runDir());
        assertTrue(Files.size(runDir.resolve("history.jsonl")) > 0, "a history was recorded");
        @SuppressWarnings("unchecked")
        Map<String, Object> testJson = StoredRun.JSON.readValue(runDir.resolve("test.json").toFile(), Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> recorded = (Map<String, Object>) testJson.get(TestRunner.BROKER_JAR_KEY);
        assertEquals(jar.toAbsolutePath().toString(), recorded.get("path"), "test.json names the mutant's jar");
        assertEquals(NightlyMix.WORKLOAD, ((Map<?, ?>) testJson.get("parameters")).get("workload"));
        Path page = MutantsPage.write(score, store.resolve("mutants"));
        assertTrue(Files.readString(page).contains(mutant.id()));
    }
}
