package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.FatalErrorHandler;
import io.faultline.broker.common.Time;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * Connections that fill the request memory pool with frames they never finish: reads pause, a small request still
 * gets through on the reserve, and the frame timeout closes the stalled connections and gives every byte back.
 */
class MemoryBackPressureTest {
    private static final int FRAME = 4 << 20;

    @Test
    void stalledFramesFillThePoolThenTimeOutAndGiveTheirBytesBack() throws Exception {
        CompletableFuture<Integer> halted = new CompletableFuture<>();
        FatalErrorHandler fatal = new FatalErrorHandler(halted::complete);
        RequestChannel channel = new RequestChannel(10);
        SocketServer server = new SocketServer(new SocketServer.Settings("127.0.0.1", 0, 1, FRAME, 100, 600_000,
                2L * FRAME, 1500), channel, Time.SYSTEM, (api, v) -> api == ApiKeys.API_VERSIONS, fatal);
        RequestHandlerPool handlers = new RequestHandlerPool(1, channel,
                r -> channel.sendResponse(r, new ApiVersionsResponseData()), fatal);
        server.start();
        MemoryPool pool = server.memoryPool();
        List<Socket> hostile = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) { // 6 frames of 4 MB, each 64 KB short, against an 8 MB pool
                Socket s = new Socket("127.0.0.1", server.boundPort());
                hostile.add(s);
                Thread w = new Thread(() -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        out.write(ByteBuffer.allocate(4).putInt(FRAME).array());
                        byte[] chunk = new byte[64 * 1024];
                        for (int sent = 0; sent < FRAME - chunk.length; sent += chunk.length) out.write(chunk);
                    } catch (Exception e) {
                        // closed by the test or the broker
                    }
                });
                w.setDaemon(true);
                w.start();
            }
            long deadline = System.currentTimeMillis() + 20_000;
            while (pool.used() < 2L * FRAME - 6 * 64 * 1024 && System.currentTimeMillis() < deadline) Thread.sleep(10);
            assertTrue(pool.used() >= 2L * FRAME - 6 * 64 * 1024, "the pool filled up: " + pool.used());

            try (Socket good = new Socket("127.0.0.1", server.boundPort())) { // ApiVersions v0: header v1, no body
                good.setSoTimeout(10_000);
                good.getOutputStream().write(ByteBuffer.allocate(14).putInt(10).putShort(ApiKeys.API_VERSIONS.id)
                        .putShort((short) 0).putInt(42).putShort((short) -1).array());
                DataInputStream in = new DataInputStream(good.getInputStream());
                int size = in.readInt();
                assertTrue(size >= 4);
                assertEquals(42, in.readInt(), "answered while the pool is full");
            }
            assertTrue(pool.used() <= 2L * FRAME + FRAME / 4, "never beyond capacity + reserve: " + pool.used());

            deadline = System.currentTimeMillis() + 20_000; // the writers stall, their sockets stay open
            while (pool.used() > 0 && System.currentTimeMillis() < deadline) Thread.sleep(20);
            assertEquals(0, pool.used(), "the frame timeout closed the stalled connections and freed their bytes");
            for (Socket s : hostile) {
                s.setSoTimeout(10_000);
                try {
                    assertEquals(-1, s.getInputStream().read(), "nothing is ever answered to an unfinished frame");
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("the broker did not close a stalled connection", e);
                } catch (java.io.IOException reset) {
                    // closed by the broker with unread bytes: a reset is a close too
                }
            }
            assertTrue(!halted.isDone(), "no fatal error");
        } finally {
            for (Socket s : hostile) s.close();
            handlers.close();
            server.close();
        }
    }
}
