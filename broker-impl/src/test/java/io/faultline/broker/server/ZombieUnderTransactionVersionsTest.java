package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A producer instance replaced by a new one (InitProducerId aborts its transaction with a bumped epoch) retries a
 * batch late, with its old epoch and next sequence, to a partition of the aborted transaction. Refused in every
 * case but one: the seeded bug zombie-not-fenced (the abort marker's epoch is not recorded on the partition) under
 * transaction version 1. Under version 2 the partition, having no open transaction of that epoch, first asks the
 * coordinator to add it, and the coordinator refuses the old epoch: KIP-890's second line of defence masks the bug.
 */
class ZombieUnderTransactionVersionsTest {
    private static final String TOPIC = "zv";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "transaction.version={0}, zombie-not-fenced={1}")
    @CsvSource({"1, false, INVALID_PRODUCER_EPOCH", "1, true, NONE", "2, false, INVALID_PRODUCER_EPOCH",
            "2, true, INVALID_PRODUCER_EPOCH"})
    void aReplacedInstancesLateRetry(int tv, boolean bug, Errors expected) throws Exception {
        Map<String, String> props = new HashMap<>(Map.of("transaction.version", Integer.toString(tv)));
        if (bug) props.putAll(Map.of("faultline.bugs.allowed", "true", "faultline.bug.zombie-not-fenced", "true"));
        String txnId = "zv-" + tv + "-" + bug;
        try (TestBroker b = TestBroker.start(dir, props); Admin admin = b.admin();
             RawClient raw = new RawClient(b.port())) {
            TestBroker.createTopics(admin, new NewTopic(TOPIC, 1, (short) 1));
            TransactionDescription old;
            try (KafkaProducer<String, String> first = TransactionsTest.txProducer(b.bootstrap(), txnId, Map.of())) {
                first.beginTransaction();
                first.send(new ProducerRecord<>(TOPIC, 0, null, "first"));
                first.flush();
                old = admin.describeTransactions(List.of(txnId)).description(txnId).get();
                // The replacement fences it: the open transaction is aborted with a bumped epoch.
                try (KafkaProducer<String, String> second = TransactionsTest.txProducer(b.bootstrap(), txnId,
                        Map.of())) {
                    assertEquals(expected, lateRetry(raw, txnId, old.producerId(), (short) old.producerEpoch(),
                            tv >= 2 ? (short) 12 : (short) 11));
                }
            } catch (org.apache.kafka.common.KafkaException fencedOnClose) {
                // the first instance learns it was fenced when it is closed; nothing to check there
            }
        }
    }

    /** The old instance's second batch (sequence 1), as its client would retry it. */
    private static Errors lateRetry(RawClient raw, String txnId, long pid, short epoch, short version)
            throws Exception {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, 1,
                new SimpleRecord("late".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData req = new ProduceRequestData().setTransactionalId(txnId).setAcks((short) -1)
                .setTimeoutMs(30_000);
        ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName(TOPIC);
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        req.topicData().add(td);
        ProduceResponseData resp = (ProduceResponseData) raw.call(ApiKeys.PRODUCE, version, req);
        return Errors.forCode(resp.responses().iterator().next().partitionResponses().get(0).errorCode());
    }
}
