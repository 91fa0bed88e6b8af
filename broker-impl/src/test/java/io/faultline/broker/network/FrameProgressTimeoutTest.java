package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/** The request frame timeout counts time without progress from the peer, not time since the frame began. */
class FrameProgressTimeoutTest {
    private static final long TIMEOUT_MS = 30_000;

    @Test
    void aSlowButSteadyFrameIsNotCut() throws Exception {
        try (NetTestSupport net = new NetTestSupport(1 << 20, 1 << 20, TIMEOUT_MS); Socket s = net.connect()) {
            byte[] req = NetTestSupport.apiVersions(42); // 4-byte size + 10 bytes
            OutputStream out = s.getOutputStream();
            out.write(req, 0, 9);
            NetTestSupport.await(() -> net.pool().used() == 10, "the frame started");
            net.awaitLoopPass();

            net.time.advance(TIMEOUT_MS * 2 / 3);
            net.awaitLoopPass();
            out.write(req, 9, 3); // progress, 20 s into the frame
            net.awaitLoopPass();

            net.time.advance(TIMEOUT_MS / 2); // 35 s since the frame began, 15 s since its last bytes
            net.awaitLoopPass();
            out.write(req, 12, 2);
            assertEquals(42, NetTestSupport.readCorrelationId(s), "the frame completed and was answered");
            assertNull(net.halted);
        }
    }

    @Test
    void timePausedForMemoryDoesNotCount() throws Exception {
        int pool = 128 * 1024;
        try (NetTestSupport net = new NetTestSupport(1 << 20, pool, TIMEOUT_MS);
             Socket filler = net.connect(); Socket waiter = net.connect()) {
            OutputStream out = filler.getOutputStream(); // holds the whole pool, one byte short of its frame
            out.write(ByteBuffer.allocate(4).putInt(pool).array());
            out.write(new byte[pool - 1]);
            NetTestSupport.await(() -> net.pool().used() == pool, "the filler holds the whole pool");

            byte[] big = largeApiVersions(7); // complete, but larger than a first buffer: waits for capacity
            waiter.getOutputStream().write(big);
            NetTestSupport.await(() -> net.pool().hasWaiters(), "the large request waits for memory");
            net.awaitLoopPass();

            // the stalled filler times out and frees the pool; the waiter, paused by the broker meanwhile, does not
            net.time.advance(TIMEOUT_MS + 10_000);
            assertEquals(7, NetTestSupport.readCorrelationId(waiter), "the paused request resumed and was answered");
            assertEquals(-1, readOrReset(filler), "the stalled filler was closed");
            assertNull(net.halted);
        }
    }

    /** A size-prefixed ApiVersions v3 request of about 30 KiB (a long client software name). */
    private static byte[] largeApiVersions(int correlationId) {
        char[] name = new char[30 * 1024];
        Arrays.fill(name, 'n');
        ApiVersionsRequest req = new ApiVersionsRequest(new ApiVersionsRequestData()
                .setClientSoftwareName(new String(name)).setClientSoftwareVersion("1"), (short) 3);
        ByteBuffer body = req.serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "t",
                correlationId));
        return ByteBuffer.allocate(4 + body.remaining()).putInt(body.remaining()).put(body).array();
    }

    private static int readOrReset(Socket s) {
        try {
            return s.getInputStream().read();
        } catch (java.io.IOException reset) {
            return -1; // closed by the broker with unread bytes
        }
    }
}
