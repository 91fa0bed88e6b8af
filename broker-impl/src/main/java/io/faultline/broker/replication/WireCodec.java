package io.faultline.broker.replication;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Kafka's size-prefixed request and response framing with kafka-clients' generated messages. */
public final class WireCodec {
    private WireCodec() {
    }

    /** A request with its header, as read by a broker. */
    public record DecodedRequest(RequestHeaderData header, ApiMessage body) {
        public ApiKeys apiKey() {
            return ApiKeys.forId(header.requestApiKey());
        }

        public short version() {
            return header.requestApiVersion();
        }
    }

    /** Size prefix + request header + body. */
    public static ByteBuffer encodeRequest(ApiKeys key, short version, String clientId, int correlationId,
                                           ApiMessage body) {
        RequestHeaderData h = new RequestHeaderData().setRequestApiKey(key.id).setRequestApiVersion(version)
                .setClientId(clientId).setCorrelationId(correlationId);
        short hv = key.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = h.size(cache, hv) + body.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(4 + size);
        buf.putInt(size);
        ByteBufferAccessor acc = new ByteBufferAccessor(buf);
        h.write(acc, cache, hv);
        body.write(acc, cache, version);
        buf.flip();
        return buf;
    }

    /** Parses a request frame without its size prefix. */
    public static DecodedRequest decodeRequest(ByteBuffer frame) {
        short key = frame.getShort(frame.position());
        short version = frame.getShort(frame.position() + 2);
        ApiKeys api = ApiKeys.forId(key);
        ByteBufferAccessor acc = new ByteBufferAccessor(frame);
        RequestHeaderData h = new RequestHeaderData(acc, api.requestHeaderVersion(version));
        ApiMessage body = api.messageType.newRequest();
        body.read(acc, version);
        return new DecodedRequest(h, body);
    }

    /** Size prefix + response header + body. */
    public static ByteBuffer encodeResponse(ApiKeys key, short version, int correlationId, ApiMessage body) {
        ResponseHeaderData h = new ResponseHeaderData().setCorrelationId(correlationId);
        short hv = key.responseHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = h.size(cache, hv) + body.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(4 + size);
        buf.putInt(size);
        ByteBufferAccessor acc = new ByteBufferAccessor(buf);
        h.write(acc, cache, hv);
        body.write(acc, cache, version);
        buf.flip();
        return buf;
    }

    /**
     * Parses a response frame (without its size prefix) to a request sent as {@code key} at {@code version}.
     *
     * @throws IllegalStateException if the correlation id is not the expected one
     */
    public static ApiMessage decodeResponse(ApiKeys key, short version, int expectedCorrelationId, ByteBuffer frame) {
        ByteBufferAccessor acc = new ByteBufferAccessor(frame);
        ResponseHeaderData h = new ResponseHeaderData(acc, key.responseHeaderVersion(version));
        if (h.correlationId() != expectedCorrelationId) {
            throw new IllegalStateException("response correlation id " + h.correlationId() + ", expected "
                    + expectedCorrelationId);
        }
        ApiMessage body = key.messageType.newResponse();
        body.read(acc, version);
        return body;
    }
}
