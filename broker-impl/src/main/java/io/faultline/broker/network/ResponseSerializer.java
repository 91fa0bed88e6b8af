package io.faultline.broker.network;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Writes a response header + body with the generated message classes, size-prefixed, ready for the socket. */
public final class ResponseSerializer {
    private ResponseSerializer() {
    }

    public static ByteBuffer serialize(ApiKeys apiKey, short version, int correlationId, ApiMessage body) {
        // One shared cache: size() memoizes string/array sizes that write() then relies on.
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        short headerVersion = apiKey.responseHeaderVersion(version);
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(4 + size);
        buf.putInt(size);
        ByteBufferAccessor accessor = new ByteBufferAccessor(buf);
        header.write(accessor, cache, headerVersion);
        body.write(accessor, cache, version);
        if (buf.hasRemaining()) {
            throw new IllegalStateException(apiKey + " v" + version + " response wrote " + buf.position()
                    + " of " + buf.capacity() + " bytes");
        }
        buf.flip();
        return buf;
    }
}
