package io.faultline.broker.network;

import io.faultline.broker.common.FatalErrorHandler;
import io.faultline.broker.common.ManualTime;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** A socket server answering ApiVersions on a manual clock, and helpers to drive it from tests. */
final class NetTestSupport implements AutoCloseable {
    final ManualTime time = new ManualTime();
    final SocketServer server;
    final RequestHandlerPool handlers;
    final FatalErrorHandler fatal;
    final RequestChannel channel;
    /** The connection id of the last request answered. */
    volatile String lastConnectionId;
    volatile Integer halted;

    NetTestSupport(int maxRequestBytes, long poolBytes, long frameTimeoutMs) throws IOException {
        fatal = new FatalErrorHandler(status -> halted = status);
        channel = new RequestChannel(10);
        server = new SocketServer(new SocketServer.Settings("127.0.0.1", 0, 1, maxRequestBytes, 100, 600_000,
                poolBytes, frameTimeoutMs), channel, time, (api, v) -> api == ApiKeys.API_VERSIONS, fatal);
        handlers = new RequestHandlerPool(1, channel, r -> {
            lastConnectionId = r.connectionId();
            channel.sendResponse(r, new ApiVersionsResponseData());
        }, fatal);
        server.start();
    }

    MemoryPool pool() {
        return server.memoryPool();
    }

    Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", server.boundPort());
        s.setSoTimeout(20_000);
        return s;
    }

    /** An ApiVersions v0 request (header v1, no body) with the given correlation id: 4-byte size + 10 bytes. */
    static byte[] apiVersions(int correlationId) {
        return ByteBuffer.allocate(14).putInt(10).putShort(ApiKeys.API_VERSIONS.id).putShort((short) 0)
                .putInt(correlationId).putShort((short) -1).array();
    }

    /** Reads one response and returns its correlation id. */
    static int readCorrelationId(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        int size = in.readInt();
        int id = in.readInt();
        in.skipNBytes(size - 4);
        return id;
    }

    /** Waits (generously) for a condition; the bound only turns a hang into a failure. */
    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting: " + what);
            Thread.sleep(5);
        }
    }

    /** Waits until the network threads have started two more loop iterations: one full pass after this call. */
    void awaitLoopPass() throws InterruptedException {
        long target = server.processorLoops() + 2;
        await(() -> server.processorLoops() >= target, "a network loop pass");
    }

    @Override
    public void close() {
        handlers.close();
        server.close();
    }
}
