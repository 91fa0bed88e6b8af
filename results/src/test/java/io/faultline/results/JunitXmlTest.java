package io.faultline.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JunitXmlTest {
    @Test
    void oneTestcasePerRunFailuresCarryTheAnomalies(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ci/junit.xml");
        JunitXml.write(file, "nightly <acks>", List.of(
                new JunitXml.Case("run 1", "acks=all min-isr=2", 61.5, "valid", List.of(), List.of(), "store/a/report.html"),
                new JunitXml.Case("run 2", "acks=1 \"unclean\"", 70, "invalid", List.of("lost-write 3", "unseen 1"),
                        List.of(), "store/b/report.html"),
                new JunitXml.Case("run 3", "acks=all", 65, "unknown", List.of(), List.of("final drain incomplete \u0001"),
                        "store/c/report.html")));
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
        Element suite = doc.getDocumentElement();
        assertEquals("testsuite", suite.getTagName());
        assertEquals("nightly <acks>", suite.getAttribute("name"));
        assertEquals("3", suite.getAttribute("tests"));
        assertEquals("1", suite.getAttribute("failures"));
        assertEquals("1", suite.getAttribute("errors"));
        NodeList cases = suite.getElementsByTagName("testcase");
        assertEquals(3, cases.getLength());
        Element invalid = (Element) cases.item(1);
        assertEquals("acks=1 \"unclean\"", invalid.getAttribute("classname"));
        Element failure = (Element) invalid.getElementsByTagName("failure").item(0);
        assertEquals("invalid: lost-write 3, unseen 1", failure.getAttribute("message"));
        assertTrue(failure.getTextContent().contains("anomalies: lost-write 3, unseen 1"), failure.getTextContent());
        assertEquals(0, ((Element) cases.item(0)).getElementsByTagName("failure").getLength());
        assertEquals(0, ((Element) cases.item(0)).getElementsByTagName("error").getLength());
        Element error = (Element) ((Element) cases.item(2)).getElementsByTagName("error").item(0);
        assertTrue(error.getAttribute("message").startsWith("unknown: final drain incomplete"), error.getAttribute("message"));
    }

    @Test
    void aVerdictOutsideTheThreeIsRejected() {
        assertThrows(IllegalArgumentException.class,
                () -> new JunitXml.Case("x", "y", 1, "ok", List.of(), List.of(), "r"));
    }
}
