package io.faultline.broker.server;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** A bare TCP client speaking the wire protocol with the generated classes, or sending arbitrary bytes. */
final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int correlation = 1;

    RawClient(int port) throws IOException {
        this(port, 0);
    }

    /** With a receive buffer of {@code receiveBufferBytes} (0: the system default), set before connecting. */
    RawClient(int port, int receiveBufferBytes) throws IOException {
        socket = new Socket();
        if (receiveBufferBytes > 0) socket.setReceiveBufferSize(receiveBufferBytes);
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", port));
        socket.setSoTimeout(5000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends a request at {@code version} and returns its correlation id. */
    int send(ApiKeys api, short version, ApiMessage body) throws IOException {
        int cid = correlation++;
        short hv = api.requestHeaderVersion(version);
        RequestHeaderData h = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(cid).setClientId("raw");
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = h.size(cache, hv) + body.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(4 + size).putInt(size);
        ByteBufferAccessor acc = new ByteBufferAccessor(buf);
        h.write(acc, cache, hv);
        body.write(acc, cache, version);
        sendBytes(buf.array());
        return cid;
    }

    /** Reads one response frame; returns the body parsed at {@code version}, checking the correlation id. */
    ApiMessage receive(ApiKeys api, short version, int expectedCorrelation) throws IOException {
        int size = in.readInt();
        byte[] frame = new byte[size];
        in.readFully(frame);
        ByteBufferAccessor acc = new ByteBufferAccessor(ByteBuffer.wrap(frame));
        ResponseHeaderData h = new ResponseHeaderData(acc, api.responseHeaderVersion(version));
        if (h.correlationId() != expectedCorrelation) {
            throw new IllegalStateException("correlation " + h.correlationId() + " != " + expectedCorrelation);
        }
        ApiMessage m = api.messageType.newResponse();
        m.read(acc, version);
        return m;
    }

    ApiMessage call(ApiKeys api, short version, ApiMessage body) throws IOException {
        return receive(api, version, send(api, version, body));
    }

    /** True if the broker closed the connection (EOF or reset) within the socket timeout. */
    boolean closedByPeer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // connection reset
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
