package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.TopicLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CreateTopics over the limits is refused before any work, with Kafka's error, and the broker restarts cleanly. */
class TopicLimitsTest {
    @TempDir
    Path dir;

    private static Throwable cause(ExecutionException e) {
        return e.getCause();
    }

    @Test
    void excessivePartitionCountsAreRefusedBeforeAnyDirectoryIsMade() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            for (boolean validateOnly : new boolean[] {true, false}) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> admin.createTopics(
                        List.of(new NewTopic("huge", 1_860_000_000, (short) 1)),
                        new CreateTopicsOptions().validateOnly(validateOnly)).all().get());
                assertInstanceOf(PolicyViolationException.class, cause(e));
                assertEquals(TopicLimits.EXCESSIVE_PARTITIONS_MESSAGE, cause(e).getMessage());
            }
            // two topics under the per-topic limit that together exceed the per-request limit: both refused
            var both = admin.createTopics(List.of(new NewTopic("a", 6000, (short) 1), new NewTopic("b", 6000, (short) 1)));
            for (String t : List.of("a", "b")) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> both.values().get(t).get());
                assertInstanceOf(PolicyViolationException.class, cause(e));
            }
            // under the per-request limit but over the broker's partition budget
            ExecutionException budget = assertThrows(ExecutionException.class, () -> admin.createTopics(
                    List.of(new NewTopic("wide", TopicLimits.MAX_PARTITIONS_PER_BROKER + 1, (short) 1))).all().get());
            assertInstanceOf(PolicyViolationException.class, cause(budget));
            assertThrows(ExecutionException.class, () -> admin.createTopics(
                    List.of(new NewTopic("rf", 1, (short) 3))).all().get(), "replication factor above the broker count");
            assertThrows(ExecutionException.class, () -> admin.createTopics(
                    List.of(new NewTopic("x".repeat(250), 1, (short) 1))).all().get(), "name over 249 characters");
            TestBroker.createTopics(admin, new NewTopic("fine", 3, (short) 1));
        }
        try (Stream<Path> dirs = Files.list(dir)) {
            assertEquals(3, dirs.filter(p -> p.getFileName().toString().matches("(huge|a|b|wide|rf|x+)-\\d+|fine-\\d+"))
                    .count(), "only the three partitions of 'fine' exist");
        }
        try (TestBroker again = TestBroker.start(dir); Admin admin = again.admin()) {
            assertTrue(admin.listTopics().names().get().contains("fine"));
            assertEquals(3, admin.describeTopics(List.of("fine")).allTopicNames().get().get("fine").partitions().size());
        }
    }
}
