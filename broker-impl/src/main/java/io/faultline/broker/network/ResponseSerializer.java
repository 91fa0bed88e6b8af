package io.faultline.broker.network;

import io.faultline.broker.common.FileRegionRecords;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;

/**
 * Writes a response header + body with the generated message classes, size-prefixed, ready for the socket. Record
 * sets that stay in a segment file ({@link FileRegionRecords}) are not copied: {@link #serializeForSend} writes the
 * framing around them into one small buffer and sends the records from the file.
 */
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

    /**
     * As {@link #serialize}, but every {@link FileRegionRecords} in the body is left in its file: the buffer holds
     * everything else (prefix, header, the fields around each record set) and the send interleaves its slices with
     * the file regions in wire order.
     */
    public static ResponseSend serializeForSend(ApiKeys apiKey, short version, int correlationId, ApiMessage body) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        short headerVersion = apiKey.responseHeaderVersion(version);
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        RegionCounter regions = new RegionCounter();
        body.write(regions, cache, version);
        RegionSplittingWriter out = new RegionSplittingWriter(Math.toIntExact(4 + size - regions.bytes));
        out.writeInt(size);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        return out.finish(apiKey + " v" + version);
    }

    /** A first pass that writes nothing and adds up the bytes of the file regions, to size the framing buffer. */
    private static final class RegionCounter implements Writable {
        long bytes;

        @Override public void writeByte(byte val) { }
        @Override public void writeShort(short val) { }
        @Override public void writeInt(int val) { }
        @Override public void writeLong(long val) { }
        @Override public void writeDouble(double val) { }
        @Override public void writeByteArray(byte[] arr) { }
        @Override public void writeUnsignedVarint(int i) { }
        @Override public void writeByteBuffer(ByteBuffer src) { }
        @Override public void writeVarint(int i) { }
        @Override public void writeVarlong(long i) { }

        @Override
        public void writeRecords(BaseRecords records) {
            if (records instanceof FileRegionRecords region) bytes += region.size();
        }
    }

    /**
     * Writes into one buffer sized for everything but the file regions; each region cuts the buffer, and the parts
     * list holds the buffer's slices and the regions in the order written.
     */
    private static final class RegionSplittingWriter implements Writable {
        private final List<Object> parts = new ArrayList<>();
        private final ByteBuffer buf;
        private final ByteBufferAccessor acc;
        private int sliceStart;

        RegionSplittingWriter(int framingBytes) {
            this.buf = ByteBuffer.allocate(framingBytes);
            this.acc = new ByteBufferAccessor(buf);
        }

        @Override public void writeByte(byte val) { acc.writeByte(val); }
        @Override public void writeShort(short val) { acc.writeShort(val); }
        @Override public void writeInt(int val) { acc.writeInt(val); }
        @Override public void writeLong(long val) { acc.writeLong(val); }
        @Override public void writeDouble(double val) { acc.writeDouble(val); }
        @Override public void writeByteArray(byte[] arr) { acc.writeByteArray(arr); }
        @Override public void writeUnsignedVarint(int i) { acc.writeUnsignedVarint(i); }
        @Override public void writeByteBuffer(ByteBuffer src) { acc.writeByteBuffer(src); }
        @Override public void writeVarint(int i) { acc.writeVarint(i); }
        @Override public void writeVarlong(long i) { acc.writeVarlong(i); }
        @Override public void writeUuid(Uuid uuid) { acc.writeUuid(uuid); }

        @Override
        public void writeRecords(BaseRecords records) {
            if (records instanceof FileRegionRecords region) {
                cut();
                if (region.size() > 0) parts.add(region);
            } else {
                Writable.super.writeRecords(records);
            }
        }

        private void cut() {
            if (buf.position() > sliceStart) parts.add(buf.slice(sliceStart, buf.position() - sliceStart));
            sliceStart = buf.position();
        }

        ResponseSend finish(String what) {
            if (buf.hasRemaining()) {
                throw new IllegalStateException(what + " response left " + buf.remaining() + " of " + buf.capacity()
                        + " framing bytes unwritten");
            }
            cut();
            return new ResponseSend(parts);
        }
    }
}
