package io.faultline.workloads.queue;

import io.faultline.checker.history.OpType;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidRequiredAcksException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The one place that decides whether an error means an operation definitely did not happen ({@code fail}) or may
 * have happened ({@code info}). When in doubt, info: calling a write failed when it in fact landed would make the
 * checker report a false aborted read, whereas info only costs precision.
 *
 * <p>Rules are tried in order, each against the error and all its causes; the first rule that matches anything in
 * the chain wins. Specific indefinite rules come first, then definite ones, then catch-alls.
 */
public final class ErrorClassifier {

    /** One rule: errors of this class get this outcome, for the stated reason. */
    public record Rule(Class<? extends Throwable> type, OpType outcome, String why) {
    }

    public record Classification(OpType outcome, String error) {
    }

    public static final List<Rule> RULES = List.of(
            // ---- our own proof comes first: it wraps whatever cause made us give up before sending ----
            new Rule(DefiniteFailure.class, OpType.FAIL,
                    "our own code proved nothing was sent (e.g. the topic could not be created)"),

            // ---- indefinite: the request may have been applied. First, so a doubt anywhere in the chain wins ----
            new Rule(TimeoutException.class, OpType.INFO,
                    "the request may have reached the broker and been appended; we just never heard back"),
            new Rule(NotEnoughReplicasAfterAppendException.class, OpType.INFO,
                    "appended on the leader but not replicated enough: it may survive"),
            new Rule(NotEnoughReplicasException.class, OpType.INFO,
                    "this attempt was refused, but an earlier (retried) attempt may have been appended"),
            new Rule(NotLeaderOrFollowerException.class, OpType.INFO,
                    "leadership moved during the request; an earlier attempt may have been appended"),
            new Rule(DisconnectException.class, OpType.INFO,
                    "the connection dropped after sending: the broker may have appended"),
            new Rule(NetworkException.class, OpType.INFO,
                    "the connection failed mid-request: the broker may have appended"),
            new Rule(UnknownServerException.class, OpType.INFO,
                    "the broker failed in an unknown way, possibly after appending"),
            new Rule(KafkaStorageException.class, OpType.INFO,
                    "a log directory failed; the append may be partly done"),
            new Rule(CorruptRecordException.class, OpType.INFO,
                    "usually transport corruption; a previous attempt may have landed"),
            new Rule(OutOfOrderSequenceException.class, OpType.INFO,
                    "the idempotent producer lost track of sequence numbers: earlier batches may or may not exist"),
            new Rule(UnknownProducerIdException.class, OpType.INFO,
                    "the broker forgot the producer id: earlier batches may or may not exist"),
            new Rule(InvalidProducerEpochException.class, OpType.INFO,
                    "the producer epoch was bumped under us: earlier batches may or may not exist"),
            new Rule(ProducerFencedException.class, OpType.INFO,
                    "another producer took over; in-flight batches may or may not have landed"),
            new Rule(InterruptException.class, OpType.INFO,
                    "we stopped waiting; the request may still complete"),
            new Rule(WakeupException.class, OpType.INFO,
                    "we stopped waiting; the request may still complete"),
            new Rule(InterruptedException.class, OpType.INFO,
                    "we stopped waiting; the request may still complete"),
            new Rule(java.util.concurrent.TimeoutException.class, OpType.INFO,
                    "our own bound on waiting for the acknowledgement expired; it may still arrive"),
            // ---- definite: nothing was written, or nothing could have been ----
            new Rule(InvalidTopicException.class, OpType.FAIL,
                    "the topic name is rejected before any record is accepted"),
            new Rule(RecordTooLargeException.class, OpType.FAIL,
                    "size checks reject the record before it is appended"),
            new Rule(RecordBatchTooLargeException.class, OpType.FAIL,
                    "size checks reject the batch before it is appended"),
            new Rule(SerializationException.class, OpType.FAIL,
                    "fails in the client before anything is sent"),
            new Rule(AuthorizationException.class, OpType.FAIL,
                    "the broker refuses the request before touching the log"),
            new Rule(AuthenticationException.class, OpType.FAIL,
                    "no authenticated connection, so no request was ever processed"),
            new Rule(UnsupportedVersionException.class, OpType.FAIL,
                    "the broker cannot parse the request, so it cannot have acted on it"),
            new Rule(InvalidRequiredAcksException.class, OpType.FAIL,
                    "the produce request is rejected outright"),
            new Rule(InvalidConfigurationException.class, OpType.FAIL,
                    "a misconfigured request is rejected outright"),
            new Rule(ConfigException.class, OpType.FAIL,
                    "the client could not even be configured"),
            new Rule(IllegalStateException.class, OpType.FAIL,
                    "a client-side precondition failed (e.g. polling with nothing assigned): no request sent"),
            new Rule(IllegalArgumentException.class, OpType.FAIL,
                    "a client-side argument check failed: no request sent"),

            // ---- catch-alls, last ----
            new Rule(RetriableException.class, OpType.INFO,
                    "any other retriable error: retries may have landed an earlier attempt"),
            new Rule(KafkaException.class, OpType.INFO,
                    "any other Kafka error: we cannot prove it had no effect"));

    /** Thrown by our own code when it can prove an operation was not attempted. */
    public static final class DefiniteFailure extends RuntimeException {
        public DefiniteFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private ErrorClassifier() {
    }

    /**
     * Generic JDK exceptions prove "no request sent" only when the client threw them itself; deeper in a cause
     * chain (wrapped by a Kafka error that arrived after sending) they prove nothing.
     */
    private static final java.util.Set<Class<?>> ONLY_AT_THE_TOP =
            java.util.Set.of(IllegalStateException.class, IllegalArgumentException.class);

    /** Classifies {@code error}; anything no rule covers is indeterminate. */
    public static Classification classify(Throwable error) {
        Throwable root = unwrap(error);
        for (Rule r : RULES) {
            for (Throwable t = root; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t != root && ONLY_AT_THE_TOP.contains(r.type())) break;
                if (r.type().isInstance(t)) {
                    // the deciding cause (or the root's own) is named too: a consumer's checksum failure hides under a KafkaException
                    Throwable named = t != root ? t : root.getCause() != null && root.getCause() != root ? root.getCause() : null;
                    return new Classification(r.outcome(), named == null ? describe(root)
                            : describe(root) + " (cause: " + describe(named) + ")");
                }
            }
        }
        return new Classification(OpType.INFO, describe(root));
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Short error text for the history: the exception's simple name and message. */
    static String describe(Throwable t) {
        String msg = t.getMessage();
        return t.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }
}
