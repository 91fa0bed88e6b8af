package io.faultline.results;

import io.faultline.checker.CheckResult;
import io.faultline.checker.history.MicroOp;
import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.LinearizabilityChecker;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;
import io.faultline.checker.txn.TxnChecker;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's drawings of cycles and non-linearizable keys, from real checker output. */
class CheckDrawingsTest {
    static Document xml(String s) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aG1cCycleIsDrawnWithOneArrowPerEdge() throws Exception {
        List<Op> ops = List.of(
                new Op(0, OpType.INVOKE, 0, 0, Op.TXN, OpValue.Txn.of(MicroOp.Poll.invoke()), null),
                new Op(1, OpType.INVOKE, 1, 1, Op.TXN, OpValue.Txn.of(MicroOp.Poll.invoke()), null),
                new Op(2, OpType.OK, 0, 2, Op.TXN, OpValue.Txn.of(new MicroOp.Send(1, 10, 0L),
                        MicroOp.poll(Map.of(2, List.of(new MicroOp.Record(0, 20))))), null),
                new Op(3, OpType.OK, 1, 3, Op.TXN, OpValue.Txn.of(new MicroOp.Send(2, 20, 0L),
                        MicroOp.poll(Map.of(1, List.of(new MicroOp.Record(0, 10))))), null));
        CheckResult r = TxnChecker.strict().check(ops);
        @SuppressWarnings("unchecked")
        var cycle = ((List<Map<String, Object>>) r.stats().get("cycles")).get(0);
        String svg = CycleSvg.render(cycle);
        Document d = xml(svg);
        assertEquals(2, d.getElementsByTagName("path").getLength() - 5, "two edges (five arrowhead paths in defs)");
        assertEquals(2, d.getElementsByTagName("circle").getLength());
        assertTrue(svg.contains(">wr</text>"), svg);
        String html = CheckDrawings.html(r);
        assertTrue(html.contains("<figcaption>G1c: T1 = op"), html);
    }

    @Test
    void aNonLinearizableKeyIsDrawnAsATimeline() throws Exception {
        List<LinOp<RegisterOp, Object>> ops = List.of(
                new LinOp<>(10, 0, 0, 10, new RegisterOp.Write(1), "ok"),
                new LinOp<>(11, 1, 20, 30, new RegisterOp.Write(2), "ok"),
                new LinOp<>(12, 2, 40, 50, RegisterOp.READ, 1L),
                new LinOp<>(13, 3, 45, LinOp.NEVER, new RegisterOp.Write(3), null));
        CheckResult r = new LinearizabilityChecker<>(RegisterModel.register(), LinearizabilityChecker.Options.defaults())
                .check(Map.of("group-a/0", ops));
        @SuppressWarnings("unchecked")
        var timeline = ((List<Map<String, Object>>) r.stats().get("timelines")).get(0);
        String html = LinearTimeline.render(timeline);
        Document d = xml(html);
        assertEquals(4, d.getElementsByTagName("rect").getLength());
        assertTrue(html.contains("fill=\"#ef2929\""), "the stuck op in red");
        assertTrue(html.contains("1. write 1"), html);
        assertTrue(html.contains("stroke-dasharray"), "the indeterminate write runs off the edge");
        assertTrue(html.contains("then op 12 (red) cannot be placed"), html);
    }
}
