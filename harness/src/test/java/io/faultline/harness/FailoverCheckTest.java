package io.faultline.harness;

import io.faultline.checker.Verdict;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FailoverCheckTest {
    private static final long S = 1_000_000_000L;

    /** A history built in time order: nemesis ops and sends, each send completed 100 ms after it began. */
    private static final class H {
        final List<Op> ops = new ArrayList<>();

        void nemesis(double at, String f, String value) {
            ops.add(new Op(ops.size(), OpType.INFO, Op.NEMESIS, (long) (at * S), f, new OpValue.Text(value), null));
        }

        void send(double at, int process, int key, OpType outcome) {
            long t = (long) (at * S);
            ops.add(new Op(ops.size(), OpType.INVOKE, process, t, Op.SEND,
                    new OpValue.Txn(List.of(new MicroOp.Send(key, ops.size(), null))), null));
            Long offset = outcome == OpType.OK ? (long) ops.size() : null;
            ops.add(new Op(ops.size(), outcome, process, t + S / 10, Op.SEND,
                    new OpValue.Txn(List.of(new MicroOp.Send(key, ops.size() - 1, offset))),
                    outcome == OpType.OK ? null : "TimeoutException"));
        }

        /** Node {@code node} goes down at {@code at} (kill, stop or pause: invoked, then completed). */
        void down(double at, String how, String node) {
            nemesis(at, how, "[" + node + "]");
            nemesis(at + 0.2, how, (how.equals("kill") ? "killed" : how.equals("stop") ? "stopped" : "paused") + " [" + node + "]");
        }

        /** Writes to keys 0 and 1 every half second from {@code from} to {@code to}; key 1's fail in [failFrom, to). */
        void writes(double from, double to, double failFrom) {
            for (double t = from; t < to; t += 0.5) {
                send(t, 0, 0, OpType.OK);
                send(t + 0.2, 1, 1, t >= failFrom ? OpType.INFO : OpType.OK);
            }
        }
    }

    @Test
    void aKeyUnwritableLongAfterOneNodeWentDownIsAnAnomaly() {
        H h = new H();
        h.writes(0, 5, 99);
        h.down(5, "kill", "n2");
        h.writes(5.5, 30, 6); // key 1 never comes back while n2 is away
        h.nemesis(30, "start", "[n2]");
        h.nemesis(31, "start", "started [n2]");
        h.writes(31, 35, 99);
        var r = FailoverCheck.check(h.ops, 3, 2);
        assertEquals(Verdict.INVALID, r.verdict());
        assertEquals(1L, r.counts().get(FailoverCheck.UNAVAILABLE));
        var ex = r.examples().get(FailoverCheck.UNAVAILABLE).get(0);
        assertEquals(1, ex.key());
        assertTrue(ex.explanation().contains("n2's outage (kill"), ex.explanation());
        assertEquals(1, r.stats().get("outages-judged"));
        assertEquals(2, r.stats().get("keys-judged"));
    }

    @Test
    void writesBackWithinTheBoundAreFineAndTheSlowestFailoverIsReported() {
        H h = new H();
        h.writes(0, 5, 99);
        h.down(5, "pause", "n1");
        h.writes(5.5, 30, 99);
        h.nemesis(30, "resume", "[n1]");
        var r = FailoverCheck.check(h.ops, 3, 2);
        assertEquals(Verdict.VALID, r.verdict());
        assertTrue((Long) r.stats().get("slowest-failover-ms") < 1000);
    }

    @Test
    void otherFaultsInForceShortOutagesAndNoReplicaToSpareAreNotJudged() {
        H cut = new H();
        cut.writes(0, 5, 99);
        cut.nemesis(4, "start-partition", "isolate");
        cut.nemesis(4.1, "start-partition", "cut {n1=[n2, n3]}");
        cut.down(5, "kill", "n2");
        cut.writes(5.5, 30, 6);
        cut.nemesis(30, "start", "[n2]");
        assertNull(FailoverCheck.check(cut.ops, 3, 2), "a cut in force: clients may be talking to a cut-off leader");

        H healed = new H();
        healed.nemesis(1, "start-partition", "cut {n1=[n2, n3]}");
        healed.nemesis(2, "stop-partition", "");
        healed.nemesis(2.1, "stop-partition", "fully connected (removed 4 rules)");
        healed.writes(2, 5, 99);
        healed.down(5, "stop", "n3");
        healed.writes(6, 30, 6);
        healed.nemesis(30, "start", "[n3]");
        assertEquals(Verdict.INVALID, FailoverCheck.check(healed.ops, 3, 2).verdict(), "the cut was healed first");
        assertNull(FailoverCheck.check(healed.ops, 3, 3), "min.insync.replicas 3 of 3: no writes by design");

        H shortOne = new H();
        shortOne.writes(0, 5, 99);
        shortOne.down(5, "kill", "n2");
        shortOne.writes(5.5, 20, 6);
        shortOne.nemesis(20, "start", "[n2]");
        assertNull(FailoverCheck.check(shortOne.ops, 3, 2), "15 s of an outage are the failover's own");

        H two = new H();
        two.writes(0, 5, 99);
        two.down(5, "kill", "n2");
        two.down(6, "kill", "n3");
        two.writes(6.5, 30, 6);
        two.nemesis(30, "start", "all");
        assertNull(FailoverCheck.check(two.ops, 3, 2), "two nodes down: a majority of three");
    }

    @Test
    void aKeyFirstWrittenDuringTheOutageIsNotJudged() {
        H h = new H();
        for (double t = 0; t < 5; t += 0.5) h.send(t, 0, 0, OpType.OK);
        h.down(5, "kill", "n2");
        h.writes(5.5, 30, 5.5); // key 1's topic cannot be created with a broker missing
        h.nemesis(30, "start", "[n2]");
        var r = FailoverCheck.check(h.ops, 3, 2);
        assertEquals(Verdict.VALID, r.verdict());
        assertEquals(1, r.stats().get("keys-judged"));
    }
}
