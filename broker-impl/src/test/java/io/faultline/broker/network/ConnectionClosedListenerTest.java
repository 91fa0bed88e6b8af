package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The request channel names every connection that closes, by the id its requests carried (the controller uses it). */
class ConnectionClosedListenerTest {

    @Test
    void aConnectionThePeerClosesIsReportedByTheIdItsRequestsCarried() throws Exception {
        try (NetTestSupport net = new NetTestSupport(1 << 20, 1 << 20, 30_000)) {
            List<String> closed = new CopyOnWriteArrayList<>();
            net.channel.onConnectionClosed(closed::add);
            Socket kept = net.connect();
            kept.getOutputStream().write(NetTestSupport.apiVersions(1));
            assertEquals(1, NetTestSupport.readCorrelationId(kept));
            String keptId = net.lastConnectionId;

            Socket s = net.connect();
            s.getOutputStream().write(NetTestSupport.apiVersions(2));
            assertEquals(2, NetTestSupport.readCorrelationId(s));
            String id = net.lastConnectionId;
            assertNotNull(id);
            s.close(); // as a killed process's kernel does: FIN, no goodbye request

            NetTestSupport.await(() -> closed.contains(id), "the close of " + id + " is reported");
            assertEquals(List.of(id), closed, "only the closed connection is reported");
            assertTrue(!id.equals(keptId));
            kept.close();
            NetTestSupport.await(() -> closed.contains(keptId), "the second close is reported");
        }
    }

    @Test
    void aFailingListenerDoesNotStopTheOthersOrTheServer() throws Exception {
        try (NetTestSupport net = new NetTestSupport(1 << 20, 1 << 20, 30_000)) {
            List<String> closed = new CopyOnWriteArrayList<>();
            net.channel.onConnectionClosed(id -> {
                throw new IllegalStateException("listener bug");
            });
            net.channel.onConnectionClosed(closed::add);
            try (Socket s = net.connect()) {
                s.getOutputStream().write(NetTestSupport.apiVersions(3));
                assertEquals(3, NetTestSupport.readCorrelationId(s));
            }
            NetTestSupport.await(() -> closed.size() == 1, "the second listener heard the close");
            try (Socket s = net.connect()) {
                s.getOutputStream().write(NetTestSupport.apiVersions(4));
                assertEquals(4, NetTestSupport.readCorrelationId(s), "the server still answers");
            }
            assertEquals(null, net.halted);
        }
    }
}
