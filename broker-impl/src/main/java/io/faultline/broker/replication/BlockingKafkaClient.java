package io.faultline.broker.replication;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A {@link LeaderEndpoint} over one plain TCP connection with blocking reads and writes. A replica fetcher has
 * exactly one request in flight and nothing else to do while it waits, so a blocking socket is the whole need;
 * kafka-clients' NetworkClient would add a selector, metadata and ApiVersions negotiation that a fetcher with a
 * fixed, known peer does not use (Kafka itself wraps NetworkClient into a blocking send for the same reason).
 * Any I/O error closes the connection; the next send reconnects.
 */
public final class BlockingKafkaClient implements LeaderEndpoint {
    private static final int MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

    private final String host;
    private final int port;
    private final String clientId;
    private final int timeoutMs;
    private Socket socket;
    private int correlationId;

    public BlockingKafkaClient(String host, int port, String clientId, int timeoutMs) {
        this.host = host;
        this.port = port;
        this.clientId = clientId;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public synchronized ApiMessage send(ApiKeys apiKey, short version, ApiMessage request) throws IOException {
        try {
            if (socket == null) {
                Socket s = new Socket();
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress(host, port), timeoutMs);
                s.setSoTimeout(timeoutMs);
                socket = s;
            }
            int corr = ++correlationId;
            ByteBuffer out = WireCodec.encodeRequest(apiKey, version, clientId, corr, request);
            OutputStream os = socket.getOutputStream();
            os.write(out.array(), out.arrayOffset() + out.position(), out.remaining());
            os.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            if (size < 0 || size > MAX_RESPONSE_BYTES) throw new IOException("bad response size " + size);
            byte[] body = new byte[size];
            in.readFully(body);
            return WireCodec.decodeResponse(apiKey, version, corr, ByteBuffer.wrap(body));
        } catch (IOException | RuntimeException e) {
            close();
            if (e instanceof EOFException) throw new IOException(host + ":" + port + " closed the connection", e);
            if (e instanceof IOException io) throw io;
            throw new IOException("bad response from " + host + ":" + port + ": " + e, e);
        }
    }

    @Override
    public synchronized void close() {
        if (socket == null) return;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        socket = null;
    }

    @Override
    public String toString() {
        return "BlockingKafkaClient(" + host + ":" + port + ")";
    }
}
