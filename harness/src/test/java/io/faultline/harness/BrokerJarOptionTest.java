package io.faultline.harness;

import io.faultline.results.RunStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `test --broker-jar` and replay of a run that used another jar: refused cleanly where it cannot apply. */
class BrokerJarOptionTest {

    @Test
    void aMissingJarOrAnotherSystemIsOneLine(@TempDir Path dir) throws Exception {
        var r = CliTestSupport.run("test", "--sut", "broker-impl", "--broker-jar", dir.resolve("none.jar").toString());
        assertNotEquals(0, r.exitCode());
        assertTrue(r.err().contains("--broker-jar: no such file"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());

        Path jar = Files.write(dir.resolve("b.jar"), new byte[] {1, 2, 3});
        TestConfig kafka = new TestConfig("apache-kafka", 3, "queue", List.of(), 10, 10, 1, 1, "all", true, 2, 3, false,
                "assign", 5, 1, 1, 1);
        var e = assertThrows(IllegalArgumentException.class, () -> runner(kafka, dir).withBrokerJar(jar));
        assertTrue(e.getMessage().contains("broker-impl only"), e.getMessage());
    }

    @Test
    void replayRefusesAJarThatIsGoneOrChanged(@TempDir Path dir) throws Exception {
        TestConfig config = new TestConfig("broker-impl", 3, "queue", List.of(), 10, 10, 1, 1, "all", true, 2, 3, false,
                "assign", 5, 1, 1, 1);
        Path jar = Files.write(dir.resolve("m.jar"), new byte[] {1, 2, 3});
        String sha = "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81"; // SHA-256 of bytes 1, 2, 3
        Map<String, Object> testJson = Map.of(TestRunner.BROKER_JAR_KEY, Map.of("path", jar.toString(), "sha256", sha));
        TestRunner plain = runner(config, dir);
        assertSame(plain, plain.withStoredBrokerJar(Map.of()), "a run of the built broker replays on the built broker");
        runner(config, dir).withStoredBrokerJar(testJson); // same bytes: accepted

        Files.write(jar, new byte[] {1, 2, 4});
        var changed = assertThrows(IllegalArgumentException.class, () -> runner(config, dir).withStoredBrokerJar(testJson));
        assertTrue(changed.getMessage().contains("changed since the run"), changed.getMessage());
        Files.delete(jar);
        var gone = assertThrows(IllegalArgumentException.class, () -> runner(config, dir).withStoredBrokerJar(testJson));
        assertTrue(gone.getMessage().contains("which is gone"), gone.getMessage());
    }

    private static TestRunner runner(TestConfig config, Path dir) {
        return new TestRunner(config, new RunStore(dir.resolve("store")), new PrintStream(new ByteArrayOutputStream()),
                NemesisSchedule::create);
    }
}
