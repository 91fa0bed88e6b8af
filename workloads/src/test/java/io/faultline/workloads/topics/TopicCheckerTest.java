package io.faultline.workloads.topics;

import io.faultline.checker.CheckResult;
import io.faultline.checker.Verdict;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.linear.LinearizabilityChecker;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopicCheckerTest {
    private final List<Op> history = new ArrayList<>();
    private long time;

    private void op(int process, String f, String asked, OpType outcome, String answered) {
        history.add(new Op(history.size(), OpType.INVOKE, process, time++, f, new OpValue.Text(asked), null));
        history.add(new Op(history.size(), outcome, process, time++, f, new OpValue.Text(answered), null));
    }

    private CheckResult check() {
        return new TopicChecker("p", LinearizabilityChecker.Options.defaults()).check(history);
    }

    @Test
    void acknowledgedChangesAndTheFinalDescriptionAgree() {
        op(0, TopicOps.CREATE, "0 create 1", OpType.OK, "0 create 1");
        op(1, TopicOps.GROW, "0 grow 4", OpType.OK, "0 grow 4");
        op(2, TopicOps.CREATE, "1 create 2", OpType.OK, "1 create 2");
        op(0, TopicOps.DELETE, "1 delete", OpType.OK, "1 delete");
        op(3, TopicOps.CREATE, "1 create 1", OpType.INFO, "1 create 1"); // may or may not have happened
        op(4, TopicOps.GROW, "0 grow 2", OpType.INFO, "0 grow 2");       // met 4 partitions: changed nothing
        op(5, TopicOps.DESCRIBE, "0 describe", OpType.OK, "0 describe 4");
        op(5, TopicOps.DESCRIBE, "1 describe", OpType.OK, "1 describe 0");
        CheckResult r = check();
        assertEquals(Verdict.VALID, r.verdict(), r::toString);
        assertEquals("topics", r.checker());
    }

    @Test
    void aLostCreationAResurrectedTopicAndAWrongCountAreNotLinearizable() {
        op(0, TopicOps.CREATE, "0 create 1", OpType.OK, "0 create 1");
        op(0, TopicOps.DESCRIBE, "0 describe", OpType.OK, "0 describe 0"); // the acknowledged creation is gone
        op(1, TopicOps.CREATE, "1 create 1", OpType.OK, "1 create 1");
        op(1, TopicOps.DELETE, "1 delete", OpType.OK, "1 delete");
        op(1, TopicOps.DESCRIBE, "1 describe", OpType.OK, "1 describe 1"); // deleted, yet back
        op(2, TopicOps.CREATE, "2 create 1", OpType.OK, "2 create 1");
        op(2, TopicOps.GROW, "2 grow 3", OpType.OK, "2 grow 3");
        op(2, TopicOps.DESCRIBE, "2 describe", OpType.OK, "2 describe 5"); // grown by more than asked
        CheckResult r = check();
        assertEquals(Verdict.INVALID, r.verdict(), r::toString);
        assertEquals(3L, r.count("topic-nonlinearizable"), r::toString);
    }

    @Test
    void twoAcknowledgedCreationsWithoutADeletionBetweenAreNotLinearizable() {
        op(0, TopicOps.CREATE, "0 create 1", OpType.OK, "0 create 1");
        op(1, TopicOps.CREATE, "0 create 2", OpType.OK, "0 create 2");
        assertEquals(Verdict.INVALID, check().verdict());
    }

    @Test
    void aRunWithoutAnAcknowledgedCreationTestedNothing() {
        op(0, TopicOps.CREATE, "0 create 1", OpType.INFO, "0 create 1");
        op(0, TopicOps.DESCRIBE, "0 describe", OpType.OK, "0 describe 1");
        assertEquals(Verdict.UNKNOWN, check().verdict());
    }
}
