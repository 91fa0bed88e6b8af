package io.faultline.broker.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transactions with kafka-clients 4.4 under each {@code transaction.version}: the same round trip (commits, an abort,
 * offsets sent to the transaction) must give read_committed readers and the group exactly the committed results,
 * with the producer epoch bumped at every transaction's end under version 2 (KIP-890 part 2) and kept under version
 * 1; and under version 2 a zombie writing with the epoch of an ended transaction is fenced.
 */
class TransactionVersionTest {
    private static final String TOPIC = "tv";
    private static final String INPUT = "tv-in";
    private static final String GROUP = "tv-group";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "transaction.version={0}")
    @ValueSource(ints = {1, 2})
    void roundTripOnOneNode(int tv) throws Exception {
        try (TestBroker b = TestBroker.start(dir, Map.of("transaction.version", Integer.toString(tv)));
             Admin admin = b.admin()) {
            assertEquals(tv, admin.describeFeatures().featureMetadata().get().finalizedFeatures()
                    .get("transaction.version").maxVersionLevel());
            TestBroker.createTopics(admin, new NewTopic(TOPIC, 2, (short) 1), new NewTopic(INPUT, 1, (short) 1));
            roundTrip(b.bootstrap(), admin, tv, "one-node-" + tv);
        }
    }

    /**
     * Three nodes: the transactional id's coordinator, the partitions' leaders and the group's coordinator are
     * spread over them, so version 2's partition adds go to another node's coordinator as AddPartitionsToTxn v5.
     */
    @ParameterizedTest(name = "transaction.version={0}")
    @ValueSource(ints = {1, 2})
    void roundTripOnThreeNodes(int tv) throws Exception {
        List<KafkaBroker> brokers = new ArrayList<>();
        LocalQuorum quorum = LocalQuorum.allocate(3);
        try {
            StringBuilder bootstrap = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                var p = quorum.configure(TestBroker.config(dir.resolve("n" + (i + 1)), quorum.clientPort(i),
                        Map.of("transaction.version", Integer.toString(tv))), i);
                p.setProperty("broker.heartbeat.interval.ms", "200");
                p.setProperty("broker.session.timeout.ms", "2000");
                bootstrap.append(i == 0 ? "" : ",").append("127.0.0.1:").append(quorum.clientPort(i));
                brokers.add(new KafkaBroker(io.faultline.broker.config.BrokerConfig.from(p),
                        io.faultline.broker.common.Time.SYSTEM));
            }
            var starts = brokers.stream().map(k -> java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return k.start();
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            })).toList();
            for (var s : starts) s.get(120, java.util.concurrent.TimeUnit.SECONDS);
            try (Admin admin = TestBroker.admin(bootstrap.toString())) {
                TestBroker.createTopics(admin, new NewTopic(TOPIC, 3, (short) 3), new NewTopic(INPUT, 1, (short) 3));
                roundTrip(bootstrap.toString(), admin, tv, "three-nodes-" + tv);
            }
        } finally {
            for (KafkaBroker k : brokers) k.close();
        }
    }

    /**
     * Three transactions (commit, abort, commit), each writing every partition of the topic and sending offsets;
     * checks the epoch after each, the group's offset after the abort and at the end, and what read_committed sees.
     */
    private static void roundTrip(String bootstrap, Admin admin, int tv, String txnId) throws Exception {
        int partitions = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).partitions().size();
        TopicPartition input = new TopicPartition(INPUT, 0);
        List<Integer> epochs = new ArrayList<>();
        try (KafkaProducer<String, String> p = TransactionsTest.txProducer(bootstrap, txnId, Map.of())) {
            for (int i = 0; i < 3; i++) {
                boolean commit = i != 1;
                p.beginTransaction();
                for (int part = 0; part < partitions; part++) {
                    p.send(new ProducerRecord<>(TOPIC, part, null, (commit ? "c" : "a") + i));
                }
                p.sendOffsetsToTransaction(Map.of(input, new OffsetAndMetadata(10L * (i + 1))),
                        new ConsumerGroupMetadata(GROUP));
                if (commit) p.commitTransaction();
                else p.abortTransaction();
                TransactionState done = commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
                await().atMost(Duration.ofSeconds(60)).until(() -> describe(admin, txnId).state() == done);
                epochs.add(describe(admin, txnId).producerEpoch());
                if (!commit) {
                    assertEquals(10L, admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get()
                            .get(input).offset(), "the aborted transaction's offsets are not committed");
                }
            }
        }
        int first = epochs.get(0);
        List<Integer> expected = tv >= 2 ? List.of(first, first + 1, first + 2) : List.of(first, first, first);
        assertEquals(expected, epochs,
                "the producer epoch after each transaction");
        assertEquals(30L, admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get().get(input)
                .offset());
        try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            for (int part = 0; part < partitions; part++) {
                TopicPartition tp = new TopicPartition(TOPIC, part);
                c.assign(Set.of(tp));
                c.seekToBeginning(Set.of(tp));
                assertEquals(List.of("c0", "c2"), poll(c, 2), "read_committed on " + tp);
            }
        }
    }

    /**
     * Version 2: once the producer's next transaction has started, writes and EndTxn with the epoch of its previous
     * (ended) transaction are refused, both on a partition the new transaction already holds (the marker raised its
     * epoch there) and on one it does not (the coordinator refuses the add), and readers never see them.
     */
    @Test
    void aZombieOfAnEndedTransactionIsFencedUnderVersionTwo() throws Exception {
        String txnId = "zombie";
        try (TestBroker b = TestBroker.start(dir, Map.of("transaction.version", "2")); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic(TOPIC, 2, (short) 1));
            try (KafkaProducer<String, String> p = TransactionsTest.txProducer(b.bootstrap(), txnId, Map.of());
                 RawClient raw = new RawClient(b.port())) {
                p.beginTransaction();
                p.send(new ProducerRecord<>(TOPIC, 0, null, "first"));
                p.flush();
                TransactionDescription old = describe(admin, txnId);
                p.commitTransaction();
                p.beginTransaction();
                p.send(new ProducerRecord<>(TOPIC, 0, null, "second"));
                p.flush();
                await().atMost(Duration.ofSeconds(60)).until(() ->
                        describe(admin, txnId).state() == TransactionState.ONGOING);
                long pid = old.producerId();
                short stale = (short) old.producerEpoch();
                assertEquals(stale + 1, (int) describe(admin, txnId).producerEpoch());
                for (int part = 0; part < 2; part++) {
                    assertEquals(Errors.INVALID_PRODUCER_EPOCH, zombieProduce(raw, txnId, pid, stale, part),
                            "a zombie's write to partition " + part);
                }
                EndTxnResponseData end = (EndTxnResponseData) raw.call(ApiKeys.END_TXN, (short) 5,
                        new EndTxnRequestData().setTransactionalId(txnId).setProducerId(pid).setProducerEpoch(stale)
                                .setCommitted(true));
                assertEquals(Errors.PRODUCER_FENCED, Errors.forCode(end.errorCode()), "a zombie's EndTxn");
                p.commitTransaction();
            }
            try (KafkaConsumer<String, String> c = TestBroker.consumer(b.bootstrap(),
                    Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
                c.assign(Set.of(new TopicPartition(TOPIC, 0)));
                c.seekToBeginning(c.assignment());
                assertEquals(List.of("first", "second"), poll(c, 2));
                c.assign(Set.of(new TopicPartition(TOPIC, 1)));
                c.seekToBeginning(c.assignment());
                assertEquals(0, c.poll(Duration.ofSeconds(1)).count(), "nothing on the partition only the zombie wrote");
                assertEquals(0L, c.position(new TopicPartition(TOPIC, 1)));
            }
        }
    }

    private static Errors zombieProduce(RawClient raw, String txnId, long pid, short epoch, int partition)
            throws Exception {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, 0,
                new SimpleRecord("zombie".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData req = new ProduceRequestData().setTransactionalId(txnId).setAcks((short) -1)
                .setTimeoutMs(30_000);
        ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName(TOPIC);
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records));
        req.topicData().add(td);
        ProduceResponseData resp = (ProduceResponseData) raw.call(ApiKeys.PRODUCE, (short) 12, req);
        return Errors.forCode(resp.responses().iterator().next().partitionResponses().get(0).errorCode());
    }

    private static TransactionDescription describe(Admin admin, String txnId) throws Exception {
        return admin.describeTransactions(List.of(txnId)).description(txnId).get();
    }

    private static List<String> poll(KafkaConsumer<String, String> c, int n) {
        List<String> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) got.add(r.value());
            return got.size() >= n;
        });
        return got;
    }
}
