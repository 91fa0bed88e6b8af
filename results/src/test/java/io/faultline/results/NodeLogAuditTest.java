package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeLogAuditTest {
    private static final List<String> BROKER_IMPL = List.of("io.faultline.broker.");
    private static final List<String> KAFKA = List.of("kafka.", "org.apache.kafka.");

    private static Path node(Path nodes, String name, String console) throws IOException {
        Path dir = Files.createDirectories(nodes.resolve(name));
        Files.writeString(dir.resolve("console.log"), console);
        return dir;
    }

    @Test
    void anInvariantThrownByTheSystemsOwnCodeIsABugEvenWhenTheClientsSawNothing(@TempDir Path nodes) throws IOException {
        String stopped = """
                2026-12-06 06:37:35,048 [replica-fetcher-3-from-2] ERROR io.faultline.broker.replication.ReplicaFetcher - Replication of t-14-0 from broker 2 failed; partition stopped
                java.lang.IllegalStateException: time index full: /data/broker/t-14-0/00000000000000000605.timeindex
                \tat io.faultline.broker.storage.TimeIndex.maybeAppend(TimeIndex.java:72)
                \tat io.faultline.broker.storage.LogSegment.observeBatch(LogSegment.java:196)
                2026-12-06 06:37:36,000 [main] INFO io.faultline.broker.Broker - still here
                """;
        node(nodes, "n1", stopped + stopped.replace("06:37:35", "06:37:40"));
        node(nodes, "n2", "2026-12-06 06:37:35,048 [main] INFO io.faultline.broker.Broker - all well\n");
        CheckResult r = NodeLogAudit.check(nodes, BROKER_IMPL);
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(2L, r.count(NodeLogAudit.BROKER_EXCEPTION), r::toString);
        var example = r.examples().get(NodeLogAudit.BROKER_EXCEPTION).get(0).explanation();
        assertTrue(example.contains("node n1, console.log line 2: java.lang.IllegalStateException: time index full"), example);
        assertTrue(example.contains("thrown at io.faultline.broker.storage.TimeIndex.maybeAppend") && example.contains("2 times in all"), example);
        assertEquals(1, r.examples().get(NodeLogAudit.BROKER_EXCEPTION).size(), "one example per distinct exception");
    }

    @Test
    void aWrappedOrCausedProgrammingErrorCountsAndItsElidedFramesAreTheEnclosingTraces(@TempDir Path nodes) throws IOException {
        node(nodes, "n1", """
                2026-12-06 01:00:00,000 [io] WARN io.faultline.broker.server.Handler - request failed
                java.util.concurrent.CompletionException: java.lang.NullPointerException: Cannot invoke "Object.hashCode()"
                \tat java.base/java.util.concurrent.CompletableFuture.encodeThrowable(CompletableFuture.java:315)
                \tat io.faultline.broker.group.GroupCoordinator.join(GroupCoordinator.java:88)
                2026-12-06 01:00:01,000 [io] ERROR io.faultline.broker.server.Handler - append failed
                org.apache.kafka.common.KafkaException: append failed
                \tat io.faultline.broker.storage.PartitionLog.append(PartitionLog.java:140)
                \tat io.faultline.broker.partition.Partition.append(Partition.java:20)
                Caused by: java.lang.ArrayIndexOutOfBoundsException: Index -1 out of bounds for length 4
                \t... 2 more
                """);
        CheckResult r = NodeLogAudit.check(nodes, BROKER_IMPL);
        assertEquals(2L, r.count(NodeLogAudit.BROKER_EXCEPTION), r::toString);
        String all = r.examples().get(NodeLogAudit.BROKER_EXCEPTION).toString();
        assertTrue(all.contains("java.lang.NullPointerException") && all.contains("GroupCoordinator.join"), all);
        assertTrue(all.contains("ArrayIndexOutOfBoundsException") && all.contains("PartitionLog.append"), all);
    }

    @Test
    void librariesBadInputAndUnattributableLinesAreNotTheSystemsInvariants(@TempDir Path nodes) throws IOException {
        node(nodes, "n1", """
                2026-12-06 01:35:38,466 [2--thread4] WARN org.apache.ratis.thirdparty.io.netty.util.concurrent.DefaultPromise - An exception was thrown
                java.lang.IllegalStateException: removed: expected == x but computed == null
                \tat org.apache.ratis.util.Preconditions.assertTrue(Preconditions.java:77)
                \tat io.faultline.broker.controller.RaftSetup.start(RaftSetup.java:10)
                2026-12-06 01:35:39,000 [io] WARN io.faultline.broker.server.Handler - bad request
                java.lang.IllegalArgumentException: negative partition count
                \tat io.faultline.broker.api.CreateTopicsApi.handle(CreateTopicsApi.java:50)
                2026-12-06 01:35:40,000 [io] INFO io.faultline.broker.server.ControllerChannel - retrying: java.lang.IllegalStateException: the active controller moved from 1 to 2
                2026-12-06 01:35:41,000 [io] INFO io.faultline.broker.Broker - an IllegalStateException in prose is no trace
                """);
        CheckResult r = NodeLogAudit.check(nodes, BROKER_IMPL);
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals(0L, r.count(NodeLogAudit.BROKER_EXCEPTION));
    }

    @Test
    void kafkasOwnPackagesAreItsCodeAndWithoutLogsOrPackagesThereIsNothingToJudge(@TempDir Path nodes) throws IOException {
        assertNull(NodeLogAudit.check(nodes, KAFKA), "no node logs");
        Path n1 = Files.createDirectories(nodes.resolve("n1").resolve("logs"));
        Files.writeString(n1.resolve("server.log"), """
                [2026-12-06 02:00:00,000] ERROR [ReplicaManager broker=1] Error processing append (kafka.server.ReplicaManager)
                java.lang.IllegalStateException: leader epoch went back
                \tat kafka.cluster.Partition.appendRecordsToLeader(Partition.scala:1300)
                """);
        assertEquals(1L, NodeLogAudit.check(nodes, KAFKA).count(NodeLogAudit.BROKER_EXCEPTION));
        assertEquals(0L, NodeLogAudit.check(nodes, BROKER_IMPL).count(NodeLogAudit.BROKER_EXCEPTION), "not broker-impl's code");
        assertNull(NodeLogAudit.check(nodes, List.of()), "a broker whose packages are unknown is not judged");
    }
}
