package io.faultline.harness;

import io.faultline.checker.history.HistoryReader;
import io.faultline.checker.history.OpType;
import io.faultline.docker.DockerBacked;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transactional queue end to end on 3-node Apache Kafka and broker-impl under partitions and kills: transactions commit and
 * abort, the Elle-style and queue checkers judge them, `analyze` agrees. The verdict is recorded, whatever it is.
 * Set -Dfaultline.keepStore=DIR to keep the run for reading by hand.
 */
@DockerBacked
class TxnQueueEndToEndTest {

    @ParameterizedTest
    @ValueSource(strings = {"apache-kafka", "broker-impl"})
    @SuppressWarnings("unchecked")
    void txnQueueRunUnderPartitionAndKillIsJudged(String sut, @TempDir Path temp) throws Exception {
        String kept = System.getProperty("faultline.keepStore");
        Path store = kept == null ? temp : Path.of(kept);
        // Machinery is asserted (the run completes, both checkers run, transactions commit and abort), not a
        // verdict, so the recovery wait is short. The workload stays at 20 s: transactions under partitions and
        // kills are slow (10 s committed only 17 on a loaded machine).
        var r = CliTestSupport.run("test", "--sut", sut, "--workload", "txn-queue", "--nodes", "3", "--nemesis", "partition,kill",
                "--time-limit", "20", "--recovery", "3", "--nemesis-interval", "5", "--concurrency", "4", "--rate", "50",
                "--keys", "3", "--seed", "13", "--store", store.toString());
        // a kept store may hold other runs: this test's is the newest of its workload
        List<Path> runs = CliTestSupport.runDirs(store).stream().filter(p -> p.toString().contains("-txn-queue-")).sorted().toList();
        Path run = runs.get(runs.size() - 1);
        String resultsJson = Files.readString(run.resolve("results.json"));
        Map<String, Object> results = CliTestSupport.results(run);
        assertEquals(true, results.get("complete"), resultsJson);
        var checks = (Map<String, Object>) results.get("checks");
        // the workload's two checks, and the replicas' agreement that every run gets
        assertEquals(java.util.Set.of("txn", "queue", "replica-agreement", "segment-audit", "node-logs"), checks.keySet(), resultsJson);
        var outcomes = new TreeMap<String, Integer>();
        for (var op : HistoryReader.read(run.resolve("history.jsonl"))) {
            if (op.process() >= 0 && op.type() != OpType.INVOKE) outcomes.merge(op.type().name().toLowerCase(), 1, Integer::sum);
        }
        System.out.println("txn-queue run outcomes: " + outcomes + "; verdict " + results.get("verdict")
                + "; txn: " + checks.get("txn") + "; queue: " + checks.get("queue"));
        assertTrue(outcomes.getOrDefault("ok", 0) > 20, "transactions committed: " + outcomes);
        assertTrue(outcomes.getOrDefault("fail", 0) > 0, "some transactions aborted: " + outcomes);
        var txn = (Map<String, Object>) checks.get("txn");
        assertTrue(((Map<String, Object>) txn.get("stats")).size() > 0, "the Elle-style checker ran: " + txn);

        // Our own broker's transactions are judged too: its coordinator, markers and LSO must hold under these faults
        // (Kafka's verdict is only recorded: Jepsen found Kafka's own transactions wanting).
        if (sut.equals("broker-impl")) assertEquals("VALID", results.get("verdict"), resultsJson);

        var again = CliTestSupport.run("analyze", run.toString());
        assertEquals(r.exitCode(), again.exitCode(), again.err());
    }
}
