package io.faultline.harness.recovery;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The probe against a scripted broker on a local socket (Kafka's own message classes on both sides): broker 1 leads
 * t-0 (high watermark 50, last stable 40), __consumer_offsets-0 and __transaction_state-0, and follows t-1.
 */
class BrokerProbeTest {
    /** What the scripted broker was asked, in order: "ApiVersions", "Metadata", "ListOffsets READ_COMMITTED [t-0]". */
    private final List<String> asked = new CopyOnWriteArrayList<>();

    @Test
    void theLeaderGivesBothEndOffsetsOfItsWorkloadPartitionsHighWatermarkFirst() throws Exception {
        NodeView view = probeScripted((short) 7);
        assertTrue(view.answered(), view.error());
        Map<String, NodeView.PartitionView> byId = new java.util.TreeMap<>();
        view.partitions().forEach(p -> byId.put(p.id(), p));
        assertEquals(50, byId.get("t-0").highWatermark());
        assertEquals(40, byId.get("t-0").lastStable());
        assertFalse(byId.get("t-0").noOpenTransaction());
        assertFalse(byId.get("t-1").hasEndOffsets(), "a follower's partition is the leader's to describe");
        // transactional offset commits are the workload's transactions on the offsets topic; other internal topics
        // hold none of the workload's
        assertTrue(byId.get("__consumer_offsets-0").hasEndOffsets(), "the offsets topic is judged");
        assertFalse(byId.get("__transaction_state-0").hasEndOffsets(), "other internal topics are not judged");
        assertEquals(List.of("ApiVersions", "Metadata", "ListOffsets READ_UNCOMMITTED [__consumer_offsets-0, t-0]",
                "ListOffsets READ_COMMITTED [__consumer_offsets-0, t-0]"), asked);
    }

    @Test
    void aBrokerWithoutIsolationLevelsIsAskedNoEndOffsets() throws Exception {
        NodeView view = probeScripted((short) 1); // ListOffsets v1: Kafka before 0.11
        assertTrue(view.answered(), view.error());
        assertTrue(view.partitions().stream().noneMatch(NodeView.PartitionView::hasEndOffsets));
        assertEquals(List.of("ApiVersions", "Metadata"), asked);
    }

    private NodeView probeScripted(short maxListOffsets) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread broker = new Thread(() -> serve(server, maxListOffsets), "scripted-broker");
            broker.setDaemon(true);
            broker.start();
            NodeView view = new BrokerProbe(Duration.ofSeconds(10)).probe("n1", 1, "127.0.0.1", server.getLocalPort());
            broker.join(10_000);
            return view;
        }
    }

    private void serve(ServerSocket server, short maxListOffsets) {
        try (Socket s = server.accept()) {
            var in = new DataInputStream(s.getInputStream());
            var out = new DataOutputStream(s.getOutputStream());
            while (true) {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                RequestHeader header = RequestHeader.parse(buf);
                ApiMessage request = header.apiKey().messageType.newRequest();
                request.read(new ByteBufferAccessor(buf), header.apiVersion());
                ApiMessage response = switch (header.apiKey()) {
                    case API_VERSIONS -> {
                        asked.add("ApiVersions");
                        var keys = new ApiVersionsResponseData.ApiVersionCollection();
                        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.METADATA.id)
                                .setMinVersion((short) 0).setMaxVersion((short) 12));
                        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.LIST_OFFSETS.id)
                                .setMinVersion((short) 0).setMaxVersion(maxListOffsets));
                        yield new ApiVersionsResponseData().setApiKeys(keys);
                    }
                    case METADATA -> {
                        asked.add("Metadata");
                        yield metadata();
                    }
                    case LIST_OFFSETS -> {
                        var r = (ListOffsetsRequestData) request;
                        IsolationLevel level = IsolationLevel.forId(r.isolationLevel());
                        List<String> parts = new ArrayList<>();
                        var topics = new ArrayList<ListOffsetsResponseData.ListOffsetsTopicResponse>();
                        for (var t : r.topics()) {
                            var ps = new ArrayList<ListOffsetsResponseData.ListOffsetsPartitionResponse>();
                            for (var p : t.partitions()) {
                                parts.add(t.name() + "-" + p.partitionIndex());
                                ps.add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                        .setPartitionIndex(p.partitionIndex())
                                        .setOffset(level == IsolationLevel.READ_COMMITTED ? 40 : 50).setTimestamp(-1));
                            }
                            topics.add(new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(t.name()).setPartitions(ps));
                        }
                        asked.add("ListOffsets " + level.name() + " " + parts);
                        yield new ListOffsetsResponseData().setTopics(topics);
                    }
                    default -> throw new IllegalStateException("not scripted: " + header.apiKey());
                };
                write(out, header, response);
            }
        } catch (IOException | RuntimeException closed) {
            // the probe hung up: the script is over
        }
    }

    private static MetadataResponseData metadata() {
        var brokers = new MetadataResponseData.MetadataResponseBrokerCollection();
        for (int id = 1; id <= 3; id++) {
            brokers.add(new MetadataResponseData.MetadataResponseBroker().setNodeId(id).setHost("n" + id).setPort(9092));
        }
        var topics = new MetadataResponseData.MetadataResponseTopicCollection();
        topics.add(new MetadataResponseData.MetadataResponseTopic().setName("t").setPartitions(List.of(
                partition(0, 1), partition(1, 2))));
        topics.add(new MetadataResponseData.MetadataResponseTopic().setName("__consumer_offsets").setIsInternal(true)
                .setPartitions(List.of(partition(0, 1))));
        topics.add(new MetadataResponseData.MetadataResponseTopic().setName("__transaction_state").setIsInternal(true)
                .setPartitions(List.of(partition(0, 1))));
        return new MetadataResponseData().setBrokers(brokers).setTopics(topics);
    }

    private static MetadataResponseData.MetadataResponsePartition partition(int index, int leader) {
        return new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(index).setLeaderId(leader)
                .setReplicaNodes(List.of(1, 2, 3)).setIsrNodes(List.of(1, 2, 3));
    }

    private static void write(DataOutputStream out, RequestHeader header, ApiMessage body) throws IOException {
        short version = header.apiVersion();
        // ApiVersions answers with header v0 whatever the request's version (a client may not know the flexible one)
        short headerVersion = header.apiKey() == ApiKeys.API_VERSIONS ? 0 : header.apiKey().responseHeaderVersion(version);
        var cache = new ObjectSerializationCache();
        var h = new ResponseHeaderData().setCorrelationId(header.correlationId());
        int size = h.size(cache, headerVersion) + body.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(size);
        var acc = new ByteBufferAccessor(buf);
        h.write(acc, cache, headerVersion);
        body.write(acc, cache, version);
        out.writeInt(size);
        out.write(buf.array());
        out.flush();
    }
}
