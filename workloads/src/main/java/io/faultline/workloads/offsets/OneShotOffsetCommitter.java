package io.faultline.workloads.offsets;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.RequestHeader;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Commits one group's offset with exactly one OffsetCommit request, never re-sent.
 *
 * <p>Why not the admin client: it re-sends a commit after a disconnect or a coordinator error. When the first copy
 * was applied, the second lands after newer commits and moves the register back, and the checker would blame the
 * broker for the client's retry (seen on the unseeded broker: one value's record twice in {@code __consumer_offsets}).
 * Here a write is one request on the wire, so its outcome is the coordinator's own answer, or {@link Outcome.NotSent}
 * when the request certainly never left (no coordinator found, no connection), or {@link Outcome.Unknown} once it may
 * have reached the coordinator without an answer.
 *
 * <p>Requests and responses are kafka-clients' own protocol classes; this class only frames them on a blocking
 * socket. One request is in flight at a time (the workload's worker threads each own one instance), and a connection
 * is dropped after any error so a late answer can never be read as the next request's.
 */
final class OneShotOffsetCommitter implements AutoCloseable {
    /** Batched FindCoordinator: what 4.x clients send; Kafka 4.x and broker-impl accept it. */
    static final short FIND_COORDINATOR_VERSION = 4;
    /** The newest OffsetCommit that names topics (v10 addresses them by id). */
    static final short OFFSET_COMMIT_VERSION = 9;
    private static final int MAX_RESPONSE_BYTES = 1 << 20;
    private static final long LOOKUP_BACKOFF_MS = 100;

    /** What became of one commit. */
    sealed interface Outcome {
        /** The coordinator answered; {@code error} is the partition's (NONE when committed). */
        record Answered(Errors error) implements Outcome {}

        /** The request never left this process: the commit certainly did not happen. */
        record NotSent(String why) implements Outcome {}

        /** The request may have reached the coordinator, and no answer came. */
        record Unknown(String why) implements Outcome {}
    }

    private final List<InetSocketAddress> bootstrap;
    private final int timeoutMs;
    private final String clientId;
    private final Map<InetSocketAddress, Socket> connections = new HashMap<>();
    private final Map<String, InetSocketAddress> coordinators = new HashMap<>();
    private int nextBootstrap;
    private int correlationId;

    /**
     * @param bootstrap "host:port,host:port"
     * @param timeoutMs the bound for finding the coordinator and, separately, for its answer to the commit
     */
    OneShotOffsetCommitter(String bootstrap, int timeoutMs, String clientId) {
        this.bootstrap = parse(bootstrap);
        this.timeoutMs = timeoutMs;
        this.clientId = clientId;
    }

    static List<InetSocketAddress> parse(String bootstrap) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String hostPort : bootstrap.split(",")) {
            String s = hostPort.trim();
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1) throw new IllegalArgumentException("not host:port: '" + s + "'");
            out.add(InetSocketAddress.createUnresolved(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1))));
        }
        if (out.isEmpty()) throw new IllegalArgumentException("no bootstrap servers");
        return out;
    }

    Outcome commit(String group, TopicPartition tp, long offset) {
        InetSocketAddress coordinator;
        try {
            coordinator = coordinator(group, System.nanoTime() + timeoutMs * 1_000_000L);
        } catch (IOException e) {
            return new Outcome.NotSent("no coordinator for " + group + ": " + e.getMessage());
        }
        Socket socket;
        try {
            socket = connection(coordinator, System.nanoTime() + timeoutMs / 2 * 1_000_000L);
        } catch (IOException e) {
            coordinators.remove(group);
            return new Outcome.NotSent("cannot connect to coordinator " + hostPort(coordinator) + ": " + e.getMessage());
        }
        OffsetCommitRequestData data = new OffsetCommitRequestData().setGroupId(group)
                .setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(tp.topic())
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(tp.partition()).setCommittedOffset(offset)))));
        OffsetCommitResponse response;
        try {
            // From the first byte written on, the coordinator may apply the commit: every failure is Unknown.
            response = (OffsetCommitResponse) exchange(coordinator, socket,
                    OffsetCommitRequest.Builder.forTopicNames(data).build(OFFSET_COMMIT_VERSION),
                    System.nanoTime() + timeoutMs * 1_000_000L);
        } catch (IOException | RuntimeException e) {
            coordinators.remove(group);
            return new Outcome.Unknown("no answer from coordinator " + hostPort(coordinator) + ": " + describe(e));
        }
        Errors error = partitionError(response.data(), tp);
        if (error != Errors.NONE) coordinators.remove(group);
        return new Outcome.Answered(error);
    }

    static Errors partitionError(OffsetCommitResponseData data, TopicPartition tp) {
        for (OffsetCommitResponseData.OffsetCommitResponseTopic t : data.topics()) {
            if (!tp.topic().equals(t.name())) continue;
            for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
                if (p.partitionIndex() == tp.partition()) return Errors.forCode(p.errorCode());
            }
        }
        // An answer without our partition says nothing about it; treat it as the broker's error, not a commit.
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /** The group's coordinator, cached until a commit to it fails; looked up at bootstrap nodes in turn. */
    private InetSocketAddress coordinator(String group, long deadlineNanos) throws IOException {
        InetSocketAddress known = coordinators.get(group);
        if (known != null) return known;
        // What a node answered says more than a later attempt that ran out of time (the last attempt gets only what
        // is left of the deadline): the message names the last answer, and a failure only where none answered.
        String answered = null;
        String last = "no bootstrap server answered";
        // Each node gets a share of the lookup, so a killed node (whose address stops answering) cannot use it all.
        long perNodeNanos = Math.max(500, timeoutMs / Math.min(3, bootstrap.size() + 1)) * 1_000_000L;
        while (true) {
            InetSocketAddress node = bootstrap.get(Math.floorMod(nextBootstrap++, bootstrap.size()));
            long attemptDeadline = Math.min(deadlineNanos, System.nanoTime() + perNodeNanos);
            try {
                FindCoordinatorResponse r = (FindCoordinatorResponse) exchange(node, connection(node, attemptDeadline),
                        new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                                .setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id())
                                .setCoordinatorKeys(List.of(group))).build(FIND_COORDINATOR_VERSION),
                        attemptDeadline);
                for (FindCoordinatorResponseData.Coordinator c : r.data().coordinators()) {
                    if (!group.equals(c.key())) continue;
                    if (c.errorCode() == Errors.NONE.code()) {
                        InetSocketAddress found = InetSocketAddress.createUnresolved(c.host(), c.port());
                        coordinators.put(group, found);
                        return found;
                    }
                    answered = hostPort(node) + " answered " + Errors.forCode(c.errorCode());
                }
            } catch (IOException | RuntimeException e) {
                last = hostPort(node) + ": " + describe(e);
            }
            long leftMs = (deadlineNanos - System.nanoTime()) / 1_000_000L;
            if (leftMs <= LOOKUP_BACKOFF_MS) throw new IOException(answered != null ? answered : last);
            sleep(LOOKUP_BACKOFF_MS);
        }
    }

    private Socket connection(InetSocketAddress node, long deadlineNanos) throws IOException {
        Socket s = connections.get(node);
        if (s != null) return s;
        s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(node.getHostString(), node.getPort()), remainingMs(deadlineNanos));
        } catch (IOException e) {
            s.close();
            throw e;
        }
        connections.put(node, s);
        return s;
    }

    /** One request, one response on {@code socket}; on any failure the connection is closed. */
    private AbstractResponse exchange(InetSocketAddress node, Socket socket, AbstractRequest request,
                                      long deadlineNanos) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), clientId, ++correlationId);
        try {
            ByteBuffer body = request.serializeWithHeader(header);
            byte[] frame = new byte[4 + body.remaining()];
            ByteBuffer.wrap(frame).putInt(body.remaining()).put(body);
            OutputStream out = socket.getOutputStream();
            out.write(frame);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            socket.setSoTimeout(remainingMs(deadlineNanos));
            int size = in.readInt();
            if (size < 0 || size > MAX_RESPONSE_BYTES) throw new IOException("response size " + size + " out of range");
            byte[] payload = new byte[size];
            int read = 0;
            while (read < size) {
                socket.setSoTimeout(remainingMs(deadlineNanos));
                int n = in.read(payload, read, size - read);
                if (n < 0) throw new IOException("connection closed mid-response");
                read += n;
            }
            return AbstractResponse.parseResponse(ByteBuffer.wrap(payload), header);
        } catch (IOException | RuntimeException e) {
            drop(node);
            throw e;
        }
    }

    private static int remainingMs(long deadlineNanos) throws SocketTimeoutException {
        long ms = (deadlineNanos - System.nanoTime()) / 1_000_000L;
        if (ms <= 0) throw new SocketTimeoutException("timed out");
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }

    private void drop(InetSocketAddress node) {
        Socket s = connections.remove(node);
        if (s == null) return;
        try {
            s.close();
        } catch (IOException ignored) {
            // closing is best effort: the socket is forgotten either way
        }
    }

    private static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    private static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    @Override
    public void close() {
        for (InetSocketAddress node : new ArrayList<>(connections.keySet())) drop(node);
    }
}
