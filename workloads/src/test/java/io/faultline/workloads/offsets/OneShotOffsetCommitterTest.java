package io.faultline.workloads.offsets;

import io.faultline.checker.history.OpType;
import io.faultline.checker.history.OpValue;
import io.faultline.workloads.generator.Client;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The committer against a scripted coordinator on 127.0.0.1 that speaks the protocol with kafka-clients' classes:
 * whatever the coordinator does, a write puts at most one OffsetCommit on the wire, and its outcome says honestly
 * whether the commit may have happened.
 */
class OneShotOffsetCommitterTest {
    static final TopicPartition TP = new TopicPartition("t", 0);

    /** What the fake coordinator does with an OffsetCommit: answer with an error, hang up, or never answer. */
    enum Reaction { NONE, NOT_COORDINATOR, LOAD_IN_PROGRESS, HANG_UP, SILENT }

    /** A one-node "cluster" that is its own coordinator; records every OffsetCommit it reads. */
    static final class FakeCoordinator implements AutoCloseable {
        final ServerSocket server;
        final List<OffsetCommitRequestData> commits = new CopyOnWriteArrayList<>();
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        final CountDownLatch released = new CountDownLatch(1);
        volatile Function<Integer, Reaction> reaction;
        volatile Errors lookupError = Errors.NONE;
        final Thread acceptor;

        FakeCoordinator(Function<Integer, Reaction> reaction) throws IOException {
            this.reaction = reaction;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.acceptor = new Thread(this::accept, "fake-coordinator");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String bootstrap() {
            return "127.0.0.1:" + server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    sockets.add(s);
                    Thread t = new Thread(() -> serve(s), "fake-coordinator-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket s) {
            try (s) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    ByteBuffer buf = ByteBuffer.wrap(frame);
                    RequestHeader header = RequestHeader.parse(buf);
                    AbstractRequest request = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(),
                            new ByteBufferAccessor(buf)).request;
                    ApiMessage answer;
                    if (header.apiKey() == ApiKeys.FIND_COORDINATOR) {
                        FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator()
                                .setKey("g").setErrorCode(lookupError.code()).setNodeId(lookupError == Errors.NONE ? 1 : -1)
                                .setHost("127.0.0.1").setPort(server.getLocalPort());
                        answer = new FindCoordinatorResponseData().setCoordinators(List.of(c));
                    } else {
                        OffsetCommitRequestData data = (OffsetCommitRequestData) request.data();
                        commits.add(data);
                        Reaction r = reaction.apply(commits.size());
                        if (r == Reaction.HANG_UP) return;
                        if (r == Reaction.SILENT) {
                            released.await(30, TimeUnit.SECONDS);
                            return;
                        }
                        Errors e = switch (r) {
                            case NOT_COORDINATOR -> Errors.NOT_COORDINATOR;
                            case LOAD_IN_PROGRESS -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
                            default -> Errors.NONE;
                        };
                        answer = new OffsetCommitResponseData().setTopics(List.of(
                                new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(TP.topic())
                                        .setPartitions(List.of(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                                .setPartitionIndex(TP.partition()).setErrorCode(e.code())))));
                    }
                    short headerVersion = header.apiKey().responseHeaderVersion(header.apiVersion());
                    ByteBuffer body = RequestUtils.serialize(new ResponseHeader(header.correlationId(), headerVersion).data(),
                            headerVersion, answer, header.apiVersion());
                    byte[] bytes = new byte[4 + body.remaining()];
                    ByteBuffer.wrap(bytes).putInt(body.remaining()).put(body);
                    out.write(bytes);
                    out.flush();
                }
            } catch (IOException | InterruptedException gone) {
                // the client hung up, or the test ended
            }
        }

        long committedOffset(int i) {
            return commits.get(i).topics().get(0).partitions().get(0).committedOffset();
        }

        @Override
        public void close() throws IOException {
            released.countDown();
            server.close();
            for (Socket s : sockets) s.close();
        }
    }

    FakeCoordinator fake;

    /**
     * A bound no answered request reaches: where the fake answers, the bound must not decide the outcome (ci22 saw the
     * first commit of a fresh JVM, at load ~25 on 2 cores, take over 5 s and end FAIL).
     */
    static final int AMPLE_MS = 60_000;

    /** One answered commit first, so class loading and JIT warm-up are not inside a test's bound. */
    @BeforeAll
    static void warmUp() throws Exception {
        try (FakeCoordinator warm = new FakeCoordinator(n -> Reaction.NONE);
             OneShotOffsetCommitter c = new OneShotOffsetCommitter(warm.bootstrap(), AMPLE_MS, "warm-up")) {
            assertEquals(OpType.OK, complete(c, 1).type());
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (fake != null) fake.close();
    }

    static Client.Completion complete(OneShotOffsetCommitter c, long offset) {
        OpValue v = new OffsetOps.KeyValue(0, offset).text();
        return OffsetErrors.completion(v, v, c.commit("g", TP, offset));
    }

    @Test
    void anAnsweredCommitIsOkAndWasSentOnce() throws Exception {
        fake = new FakeCoordinator(n -> Reaction.NONE);
        try (OneShotOffsetCommitter c = new OneShotOffsetCommitter(fake.bootstrap(), AMPLE_MS, "test")) {
            assertEquals(OpType.OK, complete(c, 41).type());
            assertEquals(OpType.OK, complete(c, 42).type());
        }
        assertEquals(2, fake.commits.size());
        assertEquals("g", fake.commits.get(0).groupId());
        assertEquals(41, fake.committedOffset(0));
        assertEquals(42, fake.committedOffset(1));
    }

    @Test
    void aHangUpAfterTheRequestIsIndeterminateAndNeverReSent() throws Exception {
        fake = new FakeCoordinator(n -> n == 1 ? Reaction.HANG_UP : Reaction.NONE);
        try (OneShotOffsetCommitter c = new OneShotOffsetCommitter(fake.bootstrap(), AMPLE_MS, "test")) {
            Client.Completion first = complete(c, 7);
            assertEquals(OpType.INFO, first.type(), first.error());
            assertEquals(1, fake.commits.size(), "the admin client would have re-sent here");
            // The next write looks the coordinator up again on a fresh connection and sends its own value only.
            assertEquals(OpType.OK, complete(c, 8).type());
        }
        assertEquals(2, fake.commits.size());
        assertEquals(8, fake.committedOffset(1));
    }

    @Test
    void noAnswerBeforeTheTimeoutIsIndeterminate() throws Exception {
        fake = new FakeCoordinator(n -> Reaction.SILENT);
        try (OneShotOffsetCommitter c = new OneShotOffsetCommitter(fake.bootstrap(), 6000, "test")) {
            Client.Completion done = complete(c, 9);
            assertEquals(OpType.INFO, done.type());
            assertTrue(done.error().contains("no answer"), done.error());
        }
        assertEquals(1, fake.commits.size());
    }

    @Test
    void coordinatorErrorsAreInfoUnlessTheyComeBeforeAnyWrite() throws Exception {
        fake = new FakeCoordinator(n -> n == 1 ? Reaction.NOT_COORDINATOR : Reaction.LOAD_IN_PROGRESS);
        try (OneShotOffsetCommitter c = new OneShotOffsetCommitter(fake.bootstrap(), AMPLE_MS, "test")) {
            Client.Completion notCoordinator = complete(c, 1);
            assertEquals(OpType.INFO, notCoordinator.type(), "NOT_COORDINATOR can follow an append a new leader keeps");
            assertTrue(notCoordinator.error().contains("NOT_COORDINATOR"), notCoordinator.error());
            assertEquals(OpType.FAIL, complete(c, 2).type(), "a loading coordinator refuses before writing");
        }
        assertEquals(2, fake.commits.size());
    }

    @Test
    void noCoordinatorMeansTheCommitWasNeverSent() throws Exception {
        fake = new FakeCoordinator(n -> Reaction.NONE);
        fake.lookupError = Errors.COORDINATOR_NOT_AVAILABLE;
        // the lookup is retried until the timeout; what the coordinator answered is named, even when the last
        // attempt, given only what was left of the timeout, found no answer in time (a loaded machine)
        try (OneShotOffsetCommitter c = new OneShotOffsetCommitter(fake.bootstrap(), 3000, "test")) {
            Client.Completion done = complete(c, 3);
            assertEquals(OpType.FAIL, done.type());
            assertTrue(done.error().contains("COORDINATOR_NOT_AVAILABLE"), done.error());
        }
        assertEquals(0, fake.commits.size());
    }

    @Test
    void nothingListeningMeansNotSent() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (OneShotOffsetCommitter c = new OneShotOffsetCommitter("127.0.0.1:" + port, 300, "test")) {
            Client.Completion done = complete(c, 4);
            assertEquals(OpType.FAIL, done.type());
            assertTrue(done.error().startsWith("not sent: no coordinator"), done.error());
        }
    }

    @Test
    void aNodeThatNeverAnswersDoesNotUseUpTheLookup() throws Exception {
        fake = new FakeCoordinator(n -> Reaction.NONE);
        // accepts connections (the kernel's backlog) but never reads or answers: a paused or cut-off node
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             OneShotOffsetCommitter c = new OneShotOffsetCommitter(
                     "127.0.0.1:" + silent.getLocalPort() + "," + fake.bootstrap(), 9000, "test")) {
            Client.Completion done = complete(c, 5);
            assertEquals(OpType.OK, done.type(), done.error());
        }
        assertEquals(1, fake.commits.size());
    }

    @Test
    void badBootstrapIsRefusedClearly() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> OneShotOffsetCommitter.parse("localhost"));
        assertTrue(e.getMessage().contains("host:port"), e.getMessage());
    }
}
