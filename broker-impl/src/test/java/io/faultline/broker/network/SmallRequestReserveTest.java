package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The pool's reserve (an eighth of it) is kept for requests that fit one first buffer. */
class SmallRequestReserveTest {
    private static final int POOL = 128 * 1024; // reserve: 16 KiB, one first buffer

    @Test
    void halfSentLargeFramesCannotTakeTheReserveFromSmallRequests() throws Exception {
        try (NetTestSupport net = new NetTestSupport(1 << 20, POOL, 30_000);
             Socket filler = net.connect(); Socket big = net.connect(); Socket good = net.connect()) {
            // a frame of the whole pool, one byte short: its first buffer, then the rest, take all the capacity
            OutputStream out = filler.getOutputStream();
            out.write(ByteBuffer.allocate(4).putInt(POOL).array());
            out.write(new byte[POOL - 1]);
            NetTestSupport.await(() -> net.pool().used() == POOL, "the filler holds the whole pool");

            // a large frame's first 16 KiB: before the fix it took the reserve, now it waits for capacity
            OutputStream bigOut = big.getOutputStream();
            bigOut.write(ByteBuffer.allocate(4).putInt(100 * 1024).array());
            bigOut.write(new byte[16 * 1024]);
            NetTestSupport.await(() -> net.pool().hasWaiters() || net.pool().used() > POOL,
                    "the large frame's first buffer was decided");
            assertEquals(POOL, net.pool().used(), "a large frame's first buffer stays out of the reserve");

            good.getOutputStream().write(NetTestSupport.apiVersions(42));
            assertEquals(42, NetTestSupport.readCorrelationId(good), "a small request is answered from the reserve");
            assertNull(net.halted);
        }
    }

    @Test
    void socketRequestMaxBytesIsClampedToThePool() throws Exception {
        try (NetTestSupport net = new NetTestSupport(1 << 20, POOL, 30_000)) {
            assertEquals(POOL, net.server.maxRequestBytes(), "a frame above the pool could never be read");
        }
        try (NetTestSupport net = new NetTestSupport(POOL / 2, POOL, 30_000)) {
            assertEquals(POOL / 2, net.server.maxRequestBytes());
        }
    }
}
