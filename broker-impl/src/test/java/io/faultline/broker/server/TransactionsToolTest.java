package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.TransactionsCommand;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's {@code kafka-transactions} tool (TransactionsCommand from kafka-tools 4.4.0) against the broker, in this
 * JVM: list, describe and describe-producers show a committed and an open transaction as the broker holds them, and
 * {@code abort} ends an open transaction the producer never finishes (the operator's remedy for a hanging
 * transaction): the tool writes the ABORT marker itself, read_committed readers move past it and never see its
 * records.
 */
class TransactionsToolTest {
    private static final TopicPartition TP = new TopicPartition("tool-tx", 0);

    @TempDir
    Path dir;

    /** The rows of a table the tool printed (a header line, then one line per row), by column name. */
    private static List<Map<String, String>> table(String out) {
        List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
        assertTrue(!lines.isEmpty(), "no table printed");
        String[] header = lines.get(0).trim().split("\\s+");
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.trim().split("\\s+");
            assertEquals(header.length, cells.length, "a row of " + Arrays.toString(header) + ": " + line);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length; i++) row.put(header[i], cells[i]);
            rows.add(row);
        }
        return rows;
    }

    private static Map<String, String> row(List<Map<String, String>> rows, String column, String value) {
        return rows.stream().filter(r -> value.equals(r.get(column))).findFirst()
                .orElseThrow(() -> new AssertionError("no row with " + column + "=" + value + " in " + rows));
    }

    @Test
    void listDescribeDescribeProducersAndAbortOfAnOpenTransaction() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            String bs = b.bootstrap();
            TestBroker.createTopics(admin, new NewTopic(TP.topic(), 1, (short) 1));
            // the open transaction must outlive the test: the coordinator's own timeout would abort it otherwise
            Map<String, Object> longTimeout = Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);
            try (KafkaProducer<String, String> done = TransactionsTest.txProducer(bs, "tool-done", Map.of());
                 KafkaProducer<String, String> open = TransactionsTest.txProducer(bs, "tool-open", longTimeout)) {
                done.beginTransaction();
                for (String v : List.of("c0", "c1", "c2")) done.send(new ProducerRecord<>(TP.topic(), 0, null, v));
                done.commitTransaction(); // offsets 0-2, the COMMIT marker at 3
                // commitTransaction returns once the commit is decided and its marker is written right after: wait
                // for it, or the open transaction's records could land before the marker (at 3) on a busy machine
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> offset(admin, IsolationLevel.READ_COMMITTED) >= 4);
                open.beginTransaction();
                for (String v : List.of("h0", "h1")) open.send(new ProducerRecord<>(TP.topic(), 0, null, v));
                open.flush(); // offsets 4-5, never committed
                assertEquals(4, offset(admin, IsolationLevel.READ_COMMITTED), "the open transaction holds the LSO");

                KafkaTool.Result list = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bs, "list");
                assertEquals(0, list.exit(), list.toString());
                List<Map<String, String>> listed = table(list.out());
                assertEquals(2, listed.size(), list.out());
                assertEquals("CompleteCommit", row(listed, "TransactionalId", "tool-done").get("TransactionState"));
                String openPid = row(listed, "TransactionalId", "tool-open").get("ProducerId");
                assertEquals("Ongoing", row(listed, "TransactionalId", "tool-open").get("TransactionState"));
                assertEquals("1", row(listed, "TransactionalId", "tool-open").get("Coordinator"));

                KafkaTool.Result describe = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bs,
                        "describe", "--transactional-id", "tool-open");
                assertEquals(0, describe.exit(), describe.toString());
                Map<String, String> d = table(describe.out()).get(0);
                assertEquals("Ongoing", d.get("TransactionState"), describe.out());
                assertEquals(openPid, d.get("ProducerId"));
                assertEquals("600000", d.get("TransactionTimeoutMs"));
                assertEquals(TP.toString(), d.get("TopicPartitions"));

                KafkaTool.Result producers = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bs,
                        "describe-producers", "--topic", TP.topic(), "--partition", "0");
                assertEquals(0, producers.exit(), producers.toString());
                List<Map<String, String>> ps = table(producers.out());
                assertEquals(2, ps.size(), producers.out());
                assertEquals("4", row(ps, "ProducerId", openPid).get("CurrentTransactionStartOffset"));
                assertEquals("1", row(ps, "ProducerId", openPid).get("LastSequence"));
                assertTrue(ps.stream().filter(r -> !r.get("ProducerId").equals(openPid))
                        .allMatch(r -> r.get("CurrentTransactionStartOffset").equals("None")), producers.out());

                KafkaTool.Result unknown = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bs,
                        "describe", "--transactional-id", "no-such-id");
                assertNotEquals(0, unknown.exit(), unknown.toString());

                // The operator aborts it by the offset where it began, as for a hanging transaction.
                KafkaTool.Result abort = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bs, "abort",
                        "--topic", TP.topic(), "--partition", "0", "--start-offset", "4");
                assertEquals(0, abort.exit(), abort.toString());
                assertEquals(7, offset(admin, IsolationLevel.READ_COMMITTED), "the ABORT marker at 6 frees the LSO");
                assertEquals(7, offset(admin, IsolationLevel.READ_UNCOMMITTED), "nothing but the marker was written");
                KafkaTool.Result after = KafkaTool.run(TransactionsCommand::main, "--bootstrap-server", bs,
                        "describe-producers", "--topic", TP.topic(), "--partition", "0");
                assertEquals("None", row(table(after.out()), "ProducerId", openPid).get("CurrentTransactionStartOffset"),
                        after.out());
                assertEquals(List.of("c0", "c1", "c2"), readCommitted(bs, 7));
            }
        }
    }

    private static long offset(Admin admin, IsolationLevel isolation) throws Exception {
        return admin.listOffsets(Map.of(TP, OffsetSpec.latest()), new ListOffsetsOptions(isolation)).all().get()
                .get(TP).offset();
    }

    /** Every record read_committed returns up to {@code end}. */
    private static List<String> readCommitted(String bootstrap, long end) {
        try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            c.assign(Set.of(TP));
            c.seekToBeginning(Set.of(TP));
            List<String> got = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) got.add(r.value());
                return c.position(TP) >= end;
            });
            return got;
        }
    }
}
