package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.FatalErrorHandler;
import io.faultline.broker.common.Time;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** An Error in a network thread, an I/O thread or a scheduled task reaches the exit action, with its thread named. */
class FatalErrorPolicyTest {
    /** Exit action that records instead of halting. */
    private static final class Recorder {
        final CompletableFuture<Integer> status = new CompletableFuture<>();
        final FatalErrorHandler handler = new FatalErrorHandler(status::complete);

        FatalErrorHandler handler() {
            return handler;
        }

        String thread() {
            return handler.firstFatal().orElseThrow().where();
        }

        Throwable error() {
            return handler.firstFatal().orElseThrow().error();
        }
    }

    /** An ApiVersions v0 request frame (header v1 with a null client id, empty body). */
    private static byte[] apiVersionsV0() {
        return ByteBuffer.allocate(14).putInt(10).putShort(ApiKeys.API_VERSIONS.id).putShort((short) 0).putInt(1)
                .putShort((short) -1).array();
    }

    private static void send(int port, byte[] frame) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(frame);
            out.flush();
            Thread.sleep(100); // keep the socket open while the broker reads (closing early is also fine)
        }
    }

    private static SocketServer.Settings settings() {
        return new SocketServer.Settings("127.0.0.1", 0, 1, 1 << 20, 100, 60_000, 4 << 20);
    }

    @Test
    void anErrorInARequestHandlerHalts() throws Exception {
        Recorder rec = new Recorder();
        RequestChannel channel = new RequestChannel(10);
        SocketServer server = new SocketServer(settings(), channel, Time.SYSTEM, (api, v) -> true, rec.handler());
        RequestHandlerPool pool = new RequestHandlerPool(1, channel, r -> {
            throw new OutOfMemoryError("simulated: Java heap space");
        }, rec.handler());
        server.start();
        try {
            send(server.boundPort(), apiVersionsV0());
            assertEquals(FatalErrorHandler.EXIT_STATUS, rec.status.get(20, TimeUnit.SECONDS));
            assertEquals("io-thread-0", rec.thread());
            assertInstanceOf(OutOfMemoryError.class, rec.error());
        } finally {
            pool.close();
            server.close();
        }
    }

    @Test
    void anErrorInANetworkThreadHalts() throws Exception {
        Recorder rec = new Recorder();
        RequestChannel channel = new RequestChannel(10);
        SocketServer server = new SocketServer(settings(), channel, Time.SYSTEM, (api, v) -> {
            throw new StackOverflowError("simulated");
        }, rec.handler());
        server.start();
        try {
            send(server.boundPort(), apiVersionsV0());
            assertEquals(FatalErrorHandler.EXIT_STATUS, rec.status.get(20, TimeUnit.SECONDS));
            assertEquals("network-thread-0", rec.thread());
            assertInstanceOf(StackOverflowError.class, rec.error());
        } finally {
            server.close();
        }
    }

    @Test
    void anErrorInAScheduledTaskHaltsInsteadOfVanishingIntoItsFuture() throws Exception {
        Recorder rec = new Recorder();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            scheduler.scheduleWithFixedDelay(rec.handler().guard("log-maintenance", () -> {
                throw new OutOfMemoryError("simulated");
            }), 0, 10, TimeUnit.MILLISECONDS);
            assertEquals(FatalErrorHandler.EXIT_STATUS, rec.status.get(20, TimeUnit.SECONDS));
            assertEquals("log-maintenance", rec.thread());
            assertTrue(rec.error() instanceof OutOfMemoryError);
        } finally {
            scheduler.shutdownNow();
        }
    }
}
