package io.faultline.workloads.queue;

import io.faultline.checker.history.OpType;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ErrorClassifierTest {
    static OpType of(Throwable t) {
        return ErrorClassifier.classify(t).outcome();
    }

    @Test
    void indefiniteErrorsAreInfo() {
        for (Throwable t : new Throwable[] {new TimeoutException("t"), new NotLeaderOrFollowerException("n"),
                new NetworkException("n"), new DisconnectException("d"), new UnknownServerException("u"),
                new NotEnoughReplicasAfterAppendException("x"), new OutOfOrderSequenceException("o"),
                new CorruptRecordException("c"), new UnknownTopicOrPartitionException("retriable"),
                new java.util.concurrent.TimeoutException("ours"), new KafkaException("generic"),
                new RuntimeException("not even Kafka")}) {
            assertEquals(OpType.INFO, of(t), t.toString());
        }
    }

    @Test
    void definiteErrorsAreFail() {
        for (Throwable t : new Throwable[] {new InvalidTopicException("bad"), new RecordTooLargeException("big"),
                new SerializationException("ser"), new TopicAuthorizationException("no"),
                new AuthorizationException("no"), new IllegalStateException("not assigned"),
                new ErrorClassifier.DefiniteFailure("no topic", new TimeoutException("admin"))}) {
            assertEquals(OpType.FAIL, of(t), t.toString());
        }
    }

    @Test
    void causesAreUnwrappedAndDoubtWins() {
        assertEquals(OpType.FAIL, of(new ExecutionException(new RecordTooLargeException("big"))));
        assertEquals(OpType.INFO, of(new ExecutionException(new TimeoutException("slow"))));
        // A definite error inside a generic wrapper is still definite...
        assertEquals(OpType.FAIL, of(new KafkaException("wrapped", new InvalidTopicException("bad"))));
        // ...but if anything in the chain says "maybe", it is info.
        assertEquals(OpType.INFO, of(new InvalidTopicException("odd", new NetworkException("lost"))));
        String text = ErrorClassifier.classify(new ExecutionException(new TimeoutException("slow"))).error();
        assertEquals("TimeoutException: slow", text);
        // the deciding cause is named: a consumer's checksum failure arrives inside a KafkaException
        var crc = ErrorClassifier.classify(new KafkaException("Received exception when fetching the next record",
                new org.apache.kafka.common.errors.CorruptRecordException("Record batch is invalid")));
        assertEquals(OpType.INFO, crc.outcome());
        assertEquals("KafkaException: Received exception when fetching the next record (cause: CorruptRecordException: "
                + "Record batch is invalid)", crc.error());
    }

    @Test
    void genericJdkExceptionsAreDefiniteOnlyWhenThrownByTheClientItself() {
        assertEquals(OpType.FAIL, ErrorClassifier.classify(new IllegalStateException("nothing assigned")).outcome());
        // wrapped in a Kafka error that came back after the request went out: proves nothing
        var wrapped = new org.apache.kafka.common.KafkaException("send failed", new IllegalStateException("inner"));
        assertEquals(OpType.INFO, ErrorClassifier.classify(wrapped).outcome());
        var inExecution = new java.util.concurrent.ExecutionException(new IllegalArgumentException("bad key"));
        assertEquals(OpType.FAIL, ErrorClassifier.classify(inExecution).outcome(), "unwrapped to the top first");
    }

    @Test
    void everyRuleIsExplainedAndListedOnce() {
        Set<Class<?>> seen = new HashSet<>();
        for (ErrorClassifier.Rule r : ErrorClassifier.RULES) {
            assertTrue(seen.add(r.type()), "duplicate rule for " + r.type());
            assertFalse(r.why().isBlank());
        }
    }
}
