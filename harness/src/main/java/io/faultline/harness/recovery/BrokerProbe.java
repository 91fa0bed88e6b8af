package io.faultline.harness.recovery;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Asks one broker directly, on its own connection, for ApiVersions, Metadata of every topic, and the end offsets of
 * the workload partitions it leads (for both isolation levels), each bounded by a short timeout: a broker that
 * heartbeats to its controller but serves no client (deadlocked, frozen) fails here even while the rest of the
 * cluster still lists it. Uses Kafka's own request and response classes; never throws.
 */
public final class BrokerProbe {
    private static final String CLIENT_ID = "faultline-recovery";
    /** Metadata v12 still names topics in the request and answers with names; both systems serve it. */
    private static final short MAX_METADATA_VERSION = 12;
    private static final int MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
    /** ListOffsets v2 (Kafka 0.11) brought isolation levels; v7 is understood by both systems and asks no topic ids. */
    private static final short MIN_LIST_OFFSETS_VERSION = 2;
    private static final short MAX_LIST_OFFSETS_VERSION = 7;

    private final Duration timeout;

    public BrokerProbe(Duration timeout) {
        this.timeout = timeout;
    }

    public NodeView probe(String node, int brokerId, String host, int port) {
        try (Socket socket = new Socket()) {
            int millis = (int) Math.max(1, timeout.toMillis());
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            var in = new DataInputStream(socket.getInputStream());
            var out = new DataOutputStream(socket.getOutputStream());
            var versions = apiVersions(in, out, 1, (short) 3);
            if (versions.data().errorCode() == Errors.UNSUPPORTED_VERSION.code()) {
                // a release before 2.4 (KIP-511) knows no ApiVersions v3: ask again in v0, which every broker answers
                versions = apiVersions(in, out, 2, (short) 0);
            }
            if (versions.data().errorCode() != Errors.NONE.code()) {
                return NodeView.silent(node, brokerId, "ApiVersions: " + Errors.forCode(versions.data().errorCode()).name());
            }
            ApiVersionsResponseData.ApiVersion metadata = versions.data().apiKeys().find(ApiKeys.METADATA.id);
            if (metadata == null) return NodeView.silent(node, brokerId, "ApiVersions lists no Metadata version");
            short v = (short) Math.min(MAX_METADATA_VERSION, metadata.maxVersion());
            var response = (MetadataResponse) exchange(in, out, 3, MetadataRequest.Builder.allTopics().build(v));
            NodeView view = view(node, brokerId, response);
            ApiVersionsResponseData.ApiVersion listOffsets = versions.data().apiKeys().find(ApiKeys.LIST_OFFSETS.id);
            if (listOffsets == null || listOffsets.maxVersion() < MIN_LIST_OFFSETS_VERSION) return view;
            try {
                return withEndOffsets(view, in, out, (short) Math.min(MAX_LIST_OFFSETS_VERSION, listOffsets.maxVersion()));
            } catch (IOException | RuntimeException e) {
                return view; // it served Metadata: judged as before, only without end offsets this time
            }
        } catch (SocketTimeoutException e) {
            return NodeView.silent(node, brokerId, "no answer within " + timeout.toMillis() + " ms");
        } catch (EOFException e) {
            return NodeView.silent(node, brokerId, "connection closed before an answer");
        } catch (IOException | RuntimeException e) {
            return NodeView.silent(node, brokerId, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /**
     * For the workload partitions this broker says it leads: the end offset a read_uncommitted consumer would get
     * (the high watermark), then a read_committed one's (the last stable offset), in that order, so a write in
     * between can only raise the second. Internal topics are left out but the consumer offsets topic: transactional
     * offset commits (sendOffsetsToTransaction) are transactions of the workload's producers there, and one left open
     * makes every read_committed consumer of the group wait (UNSTABLE_OFFSET_COMMIT) forever.
     */
    static final String OFFSETS_TOPIC = "__consumer_offsets";

    private static NodeView withEndOffsets(NodeView view, DataInputStream in, DataOutputStream out, short version)
            throws IOException {
        List<NodeView.PartitionView> led = view.partitions().stream()
                .filter(p -> p.leader() == view.brokerId() && p.error() == null && p.partition() >= 0
                        && (!p.topic().startsWith("__") || OFFSETS_TOPIC.equals(p.topic())))
                .toList();
        if (led.isEmpty()) return view;
        var high = latest(in, out, 4, version, IsolationLevel.READ_UNCOMMITTED, led);
        var stable = latest(in, out, 5, version, IsolationLevel.READ_COMMITTED, led);
        List<NodeView.PartitionView> partitions = new ArrayList<>();
        for (NodeView.PartitionView p : view.partitions()) {
            Long h = high.get(p.id()), l = stable.get(p.id());
            partitions.add(h != null && l != null ? p.withEndOffsets(h, l) : p);
        }
        return new NodeView(view.node(), view.brokerId(), view.error(), view.brokers(), partitions);
    }

    /** Latest offsets by partition id; partitions answered with an error are left out. */
    private static Map<String, Long> latest(DataInputStream in, DataOutputStream out, int correlationId, short version,
                                            IsolationLevel isolation, List<NodeView.PartitionView> partitions)
            throws IOException {
        Map<String, ListOffsetsRequestData.ListOffsetsTopic> topics = new TreeMap<>();
        for (NodeView.PartitionView p : partitions) {
            topics.computeIfAbsent(p.topic(), t -> new ListOffsetsRequestData.ListOffsetsTopic().setName(t))
                    .partitions().add(new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(p.partition()).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
        }
        var request = ListOffsetsRequest.Builder.forConsumer(false, isolation)
                .setTargetTimes(new ArrayList<>(topics.values())).build(version);
        var response = (ListOffsetsResponse) exchange(in, out, correlationId, request);
        Map<String, Long> offsets = new HashMap<>();
        for (var t : response.data().topics()) {
            for (var p : t.partitions()) {
                if (p.errorCode() == Errors.NONE.code() && p.offset() >= 0) offsets.put(t.name() + "-" + p.partitionIndex(), p.offset());
            }
        }
        return offsets;
    }

    private static ApiVersionsResponse apiVersions(DataInputStream in, DataOutputStream out, int correlationId,
                                                  short version) throws IOException {
        return (ApiVersionsResponse) exchange(in, out, correlationId,
                new ApiVersionsRequest.Builder(new org.apache.kafka.common.message.ApiVersionsRequestData()
                        .setClientSoftwareName(CLIENT_ID).setClientSoftwareVersion("1"), version, version).build(version));
    }

    private static AbstractResponse exchange(DataInputStream in, DataOutputStream out, int correlationId,
                                             AbstractRequest request) throws IOException {
        var header = new RequestHeader(request.apiKey(), request.version(), CLIENT_ID, correlationId);
        ByteBuffer body = request.serializeWithHeader(header);
        out.writeInt(body.remaining());
        out.write(body.array(), body.arrayOffset() + body.position(), body.remaining());
        out.flush();
        int size = in.readInt();
        if (size < 0 || size > MAX_RESPONSE_BYTES) throw new IOException("response size " + size + " out of range");
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(bytes), header);
    }

    private static NodeView view(String node, int brokerId, MetadataResponse response) {
        var data = response.data();
        Set<Integer> brokers = new TreeSet<>();
        data.brokers().forEach(b -> brokers.add(b.nodeId()));
        List<NodeView.PartitionView> partitions = new ArrayList<>();
        for (var t : data.topics()) {
            if (t.errorCode() != Errors.NONE.code() && t.partitions().isEmpty()) {
                partitions.add(new NodeView.PartitionView(t.name(), -1, -1, List.of(), List.of(),
                        Errors.forCode(t.errorCode()).name()));
                continue;
            }
            for (var p : t.partitions()) {
                partitions.add(new NodeView.PartitionView(t.name(), p.partitionIndex(), p.leaderId(), p.leaderEpoch(), p.replicaNodes(),
                        p.isrNodes(), p.errorCode() == Errors.NONE.code() ? null : Errors.forCode(p.errorCode()).name()));
            }
        }
        return new NodeView(node, brokerId, null, brokers, partitions);
    }
}
