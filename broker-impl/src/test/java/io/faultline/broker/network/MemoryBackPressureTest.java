package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Connections that fill the request memory pool with frames they never finish: a small request still gets through
 * on the reserve, and the frame timeout (on a manual clock) closes the stalled connections and gives every byte back.
 */
class MemoryBackPressureTest {
    private static final int FRAME = 4 << 20;
    private static final long TIMEOUT_MS = 1500;

    @Test
    void stalledFramesFillThePoolThenTimeOutAndGiveTheirBytesBack() throws Exception {
        List<Socket> hostile = new ArrayList<>();
        try (NetTestSupport net = new NetTestSupport(FRAME, 2L * FRAME, TIMEOUT_MS)) {
            MemoryPool pool = net.pool();
            for (int i = 0; i < 2; i++) { // 2 frames of 4 MB, each 64 KB short, against an 8 MB pool
                Socket s = net.connect();
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
            // each frame's first buffer fits, then it grows to its whole size: exactly the capacity
            NetTestSupport.await(() -> pool.used() == 2L * FRAME, "the pool filled up");

            try (Socket good = net.connect()) {
                good.getOutputStream().write(NetTestSupport.apiVersions(42));
                assertEquals(42, NetTestSupport.readCorrelationId(good), "answered while the pool is full");
            }
            assertEquals(2L * FRAME, pool.used(), "still full: the small request's bytes came from the reserve");

            // The writers stall (their sockets stay open). Bytes still arriving count as progress, so advance the
            // clock past the timeout until both frames have been silent for longer than it.
            NetTestSupport.await(() -> {
                net.time.advance(TIMEOUT_MS + 1000);
                try {
                    net.awaitLoopPass();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                return pool.used() == 0;
            }, "the frame timeout closed the stalled connections and freed their bytes");
            for (Socket s : hostile) {
                int r;
                try {
                    r = s.getInputStream().read();
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("the broker did not close a stalled connection", e);
                } catch (java.io.IOException reset) {
                    r = -1; // closed by the broker with unread bytes: a reset is a close too
                }
                assertEquals(-1, r, "nothing is ever answered to an unfinished frame");
            }
            assertNull(net.halted, "no fatal error");
        } finally {
            for (Socket s : hostile) s.close();
        }
    }
}
