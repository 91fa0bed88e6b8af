package io.faultline.broker.server;

import io.faultline.broker.api.BrokerContext;
import io.faultline.broker.api.KafkaApis;
import io.faultline.broker.group.OffsetStore;
import io.faultline.broker.metadata.Endpoint;
import io.faultline.broker.metadata.PartitionRegistration;
import io.faultline.broker.network.Request;
import io.faultline.broker.partition.ProducerIdManager;
import io.faultline.broker.replication.BlockingKafkaClient;
import io.faultline.broker.txn.MarkerAppender;
import io.faultline.broker.txn.TransactionCoordinator;
import io.faultline.broker.txn.TransactionStateTopic;
import io.faultline.broker.txn.TxnApis;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import io.faultline.broker.txn.TxnPartitionAdder;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator of this node, the marker writer every broker has, and their APIs. Markers for
 * partitions this node leads are appended directly; others go to their leader as WriteTxnMarkers over the
 * inter-broker listener, one blocking connection per broker, each on a thread of its own ({@link PerBrokerSenders}).
 */
final class TxnWiring implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TxnWiring.class);
    private static final byte KEY_TYPE_TRANSACTION = 1;
    private static final int MARKER_SOCKET_TIMEOUT_MS = 30_000;

    private final BrokerContext base;
    private final OffsetStore offsets;
    private final TransactionStateTopic topic;
    private final MarkerAppender markers;
    private final TransactionCoordinator coordinator;
    private final PerBrokerSenders sender = new PerBrokerSenders("txn-marker-sender");
    /** Each used on its broker's sender thread only. */
    private final Map<Integer, BlockingKafkaClient> clients = new java.util.concurrent.ConcurrentHashMap<>();
    /** AddPartitionsToTxn to other coordinators gets its own thread: a slow marker round must not hold up produce. */
    private final PerBrokerSenders addSender = new PerBrokerSenders("txn-add-sender");
    private final Map<Integer, BlockingKafkaClient> addClients = new java.util.concurrent.ConcurrentHashMap<>();
    /** Where produce and TxnOffsetCommit go on once the coordinator added their partitions. */
    private final ExecutorService continuation = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "txn-add-continuation");
        t.setDaemon(true);
        return t;
    });
    private final TxnPartitionAdder adder;

    TxnWiring(BrokerContext base, OffsetStore offsets, ProducerIdManager ids) {
        this.base = base;
        this.offsets = offsets;
        this.topic = new TransactionStateTopic(base);
        this.markers = new MarkerAppender(base.partitions(), base::replicationLeader, offsets, base.time());
        this.coordinator = new TransactionCoordinator(base.partitions(), base::replicationLeader, topic, ids,
                base.time(), this::leaderOf, this::sendMarkers);
        this.adder = new TxnPartitionAdder(base.nodeId(), coordinator, base.partitions(), this::coordinatorOf,
                this::sendAdd, continuation);
    }

    private Optional<Integer> coordinatorOf(String txnId) {
        return leaderOf(topic.topicPartition(txnId)).filter(leader -> leader >= 0);
    }

    /** AddPartitionsToTxn v5 (verifyOnly false) for one transaction to the coordinator on {@code node}. */
    private CompletableFuture<Map<TopicPartition, Errors>> sendAdd(int node, String txnId, long pid, short epoch,
                                                                   java.util.Set<TopicPartition> tps) {
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction t =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction().setTransactionalId(txnId)
                        .setProducerId(pid).setProducerEpoch(epoch).setVerifyOnly(false);
        Map<String, AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic> byTopic = new HashMap<>();
        for (TopicPartition tp : tps) {
            byTopic.computeIfAbsent(tp.topic(), n -> {
                var topic = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName(n);
                t.topics().add(topic);
                return topic;
            }).partitions().add(tp.partition());
        }
        AddPartitionsToTxnRequestData req = new AddPartitionsToTxnRequestData();
        req.transactions().add(t);
        CompletableFuture<Map<TopicPartition, Errors>> f = new CompletableFuture<>();
        try {
            addSender.execute(node, () -> {
                try {
                    AddPartitionsToTxnResponseData resp = (AddPartitionsToTxnResponseData) client(addClients, node)
                            .send(ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 5, req);
                    Map<TopicPartition, Errors> out = new HashMap<>();
                    Errors all = Errors.forCode(resp.errorCode());
                    resp.resultsByTransaction().forEach(r -> r.topicResults().forEach(tr -> tr.resultsByPartition()
                            .forEach(p -> out.put(new TopicPartition(tr.name(), p.partitionIndex()),
                                    all != Errors.NONE ? all : Errors.forCode(p.partitionErrorCode())))));
                    f.complete(out);
                } catch (IOException | RuntimeException e) {
                    BlockingKafkaClient c = addClients.remove(node);
                    if (c != null) c.close();
                    log.debug("AddPartitionsToTxn to broker {} failed: {}", node, e.toString());
                    f.complete(Map.of());
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            f.complete(Map.of());
        }
        return f;
    }

    void start() {
        coordinator.start();
    }

    private Optional<Integer> leaderOf(TopicPartition tp) {
        return base.partitions().image().topic(tp.topic()).map(t -> t.partition(tp.partition()))
                .map(p -> p.hasLeader() ? p.leader() : -1);
    }

    private CompletableFuture<Map<TopicPartition, Errors>> sendMarkers(int leader, long pid, short epoch,
                                                                        int coordEpoch, boolean commit,
                                                                        List<TopicPartition> tps) {
        CompletableFuture<Map<TopicPartition, Errors>> f = new CompletableFuture<>();
        if (leader == base.nodeId()) {
            markers.write(pid, epoch, coordEpoch, commit, tps, f::complete);
            return f;
        }
        WriteTxnMarkersRequestData.WritableTxnMarker m = new WriteTxnMarkersRequestData.WritableTxnMarker()
                .setProducerId(pid).setProducerEpoch(epoch).setCoordinatorEpoch(coordEpoch).setTransactionResult(commit);
        Map<String, WriteTxnMarkersRequestData.WritableTxnMarkerTopic> byTopic = new HashMap<>();
        for (TopicPartition tp : tps) {
            byTopic.computeIfAbsent(tp.topic(), n -> {
                var t = new WriteTxnMarkersRequestData.WritableTxnMarkerTopic().setName(n);
                m.topics().add(t);
                return t;
            }).partitionIndexes().add(tp.partition());
        }
        WriteTxnMarkersRequestData req = new WriteTxnMarkersRequestData();
        req.markers().add(m);
        try {
            sender.execute(leader, () -> {
                try {
                    WriteTxnMarkersResponseData resp = (WriteTxnMarkersResponseData) client(clients, leader)
                            .send(ApiKeys.WRITE_TXN_MARKERS, (short) 1, req);
                    Map<TopicPartition, Errors> out = new HashMap<>();
                    resp.markers().forEach(r -> r.topics().forEach(t -> t.partitions().forEach(p ->
                            out.put(new TopicPartition(t.name(), p.partitionIndex()), Errors.forCode(p.errorCode())))));
                    f.complete(out);
                } catch (IOException | RuntimeException e) {
                    BlockingKafkaClient c = clients.remove(leader); // the broker may be back at another address
                    if (c != null) c.close();
                    log.debug("WriteTxnMarkers to broker {} failed: {}", leader, e.toString());
                    f.complete(Map.of());
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            f.complete(Map.of());
        }
        return f;
    }

    private BlockingKafkaClient client(Map<Integer, BlockingKafkaClient> clients, int nodeId) throws IOException {
        BlockingKafkaClient c = clients.get(nodeId);
        if (c != null) return c;
        String listener = base.config().listeners().interBroker();
        Endpoint ep = base.partitions().image().broker(nodeId).map(b -> b.endpoints().get(listener))
                .orElseThrow(() -> new IOException("broker " + nodeId + " has no " + listener + " listener"));
        c = new BlockingKafkaClient(ep.host(), ep.port(), "txn-markers-" + base.nodeId(), MARKER_SOCKET_TIMEOUT_MS);
        clients.put(nodeId, c);
        return c;
    }

    /** Registers the transaction APIs of one listener (after the group APIs, whose FindCoordinator it extends). */
    void register(BrokerContext ctx, KafkaApis apis) {
        TxnApis txn = new TxnApis(ctx, coordinator, markers, offsets, adder);
        apis.register(ApiKeys.PRODUCE, new TransactionalProduce(ctx, adder)::handle);
        TransactionStateTopic listenerTopic = new TransactionStateTopic(ctx);
        Consumer<Request> groupFind = apis.handler(ApiKeys.FIND_COORDINATOR);
        Consumer<Request> idempotentInit = apis.handler(ApiKeys.INIT_PRODUCER_ID);
        apis.register(ApiKeys.FIND_COORDINATOR, r -> findCoordinator(ctx, listenerTopic, groupFind, r))
                .register(ApiKeys.INIT_PRODUCER_ID, r -> {
                    if (((InitProducerIdRequestData) r.data()).transactionalId() == null) idempotentInit.accept(r);
                    else txn.initProducerId(r);
                })
                .register(ApiKeys.ADD_PARTITIONS_TO_TXN, txn::addPartitionsToTxn)
                .register(ApiKeys.ADD_OFFSETS_TO_TXN, txn::addOffsetsToTxn)
                .register(ApiKeys.END_TXN, txn::endTxn)
                .register(ApiKeys.TXN_OFFSET_COMMIT, txn::txnOffsetCommit)
                .register(ApiKeys.WRITE_TXN_MARKERS, txn::writeTxnMarkers);
        io.faultline.broker.txn.TxnAdminApis admin = new io.faultline.broker.txn.TxnAdminApis(ctx, coordinator);
        apis.register(ApiKeys.DESCRIBE_TRANSACTIONS, admin::describeTransactions)
                .register(ApiKeys.LIST_TRANSACTIONS, admin::listTransactions)
                .register(ApiKeys.DESCRIBE_PRODUCERS, admin::describeProducers);
    }

    /** FindCoordinator of key type TRANSACTION: the leader of the id's {@code __transaction_state} partition. */
    private static void findCoordinator(BrokerContext ctx, TransactionStateTopic topic, Consumer<Request> groups,
                                        Request r) {
        FindCoordinatorRequestData req = r.data();
        if (req.keyType() != KEY_TYPE_TRANSACTION) {
            groups.accept(r);
            return;
        }
        FindCoordinatorResponseData resp = new FindCoordinatorResponseData().setThrottleTimeMs(0);
        if (r.version() < 4) {
            var c = topic.locate(req.key());
            resp.setErrorCode((c.isPresent() ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE).code())
                    .setNodeId(c.map(TransactionStateTopic.Coordinator::nodeId).orElse(-1))
                    .setHost(c.map(x -> x.endpoint().host()).orElse(""))
                    .setPort(c.map(x -> x.endpoint().port()).orElse(-1));
        } else {
            for (String key : req.coordinatorKeys()) {
                var c = topic.locate(key);
                resp.coordinators().add(new FindCoordinatorResponseData.Coordinator().setKey(key)
                        .setErrorCode((c.isPresent() ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE).code())
                        .setNodeId(c.map(TransactionStateTopic.Coordinator::nodeId).orElse(-1))
                        .setHost(c.map(x -> x.endpoint().host()).orElse(""))
                        .setPort(c.map(x -> x.endpoint().port()).orElse(-1)));
            }
        }
        ctx.channel().sendResponse(r, resp);
    }

    @Override
    public void close() {
        coordinator.close();
        continuation.shutdownNow();
        sender.close();
        addSender.close();
        clients.values().forEach(BlockingKafkaClient::close);
        addClients.values().forEach(BlockingKafkaClient::close);
    }
}
