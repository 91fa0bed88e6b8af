package io.faultline.workloads.offsets;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;

import java.util.List;

/**
 * fail or info for an offsets op. A read changes nothing, so any error fails it. A write is info (it may have
 * been committed) unless the error is one the coordinator returns before touching the offsets: calling a write
 * failed when it landed would make the checker reject a correct history, whereas info only costs precision.
 */
public final class OffsetErrors {
    /** Refusals that come before the commit is applied. */
    static final List<Class<? extends Throwable>> DEFINITE = List.of(
            GroupNotEmptyException.class,        // the group has members: memberless commits are refused outright
            CoordinatorLoadInProgressException.class, // the coordinator has not loaded the group yet
            GroupIdNotFoundException.class,
            InvalidGroupIdException.class,
            UnknownTopicOrPartitionException.class);

    private OffsetErrors() {}

    public static OpType classify(String f, Throwable error) {
        if (!OffsetOps.WRITE.equals(f)) return OpType.FAIL;
        for (Throwable t = error; t != null; t = t.getCause()) {
            for (Class<? extends Throwable> c : DEFINITE) {
                if (c.isInstance(t)) return OpType.FAIL;
            }
            if (t.getCause() == t) break;
        }
        return OpType.INFO;
    }

    /**
     * A one-request commit's completion: ok when the coordinator said NONE; fail when it was never sent or refused
     * before applying; info otherwise (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and REQUEST_TIMED_OUT can all
     * follow an append that a new leader of the offsets partition keeps).
     */
    static Client.Completion completion(OpValue value, OpValue committed, OneShotOffsetCommitter.Outcome outcome) {
        if (outcome instanceof OneShotOffsetCommitter.Outcome.Answered a) {
            if (a.error() == Errors.NONE) return Client.Completion.ok(committed);
            return new Client.Completion(classify(OffsetOps.WRITE, a.error().exception()), value,
                    "coordinator answered " + a.error());
        }
        if (outcome instanceof OneShotOffsetCommitter.Outcome.NotSent n) {
            return new Client.Completion(OpType.FAIL, value, "not sent: " + n.why());
        }
        return new Client.Completion(OpType.INFO, value, ((OneShotOffsetCommitter.Outcome.Unknown) outcome).why());
    }

    static Client.Completion completion(String f, OpValue value, Throwable error) {
        return new Client.Completion(classify(f, error), value, error.getClass().getSimpleName() + ": " + error.getMessage());
    }
}
