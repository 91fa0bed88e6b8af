package io.faultline.broker.network;

import io.faultline.broker.common.FileRegionRecords;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * A serialized response on its way to the socket: in-memory parts (size prefix, header, framing, small record sets)
 * and {@link FileRegionRecords} parts that go from the segment file to the socket without passing through the heap.
 * Written by one network thread in as many calls as the socket needs; a call stops when the socket takes no more
 * (the processor then waits for the socket to become writable), so a slow reader holds nothing but this object.
 */
public final class ResponseSend {
    private final Object[] parts; // ByteBuffer or FileRegionRecords, in wire order
    private final long size;
    private int part;
    private long sentOfPart;
    private long sent;

    ResponseSend(List<Object> parts) {
        this.parts = parts.toArray();
        long total = 0;
        for (Object p : this.parts) {
            if (p instanceof ByteBuffer b) total += b.remaining();
            else if (p instanceof FileRegionRecords f) total += f.size();
            else throw new IllegalArgumentException("not a response part: " + p);
        }
        this.size = total;
    }

    /** One in-memory response (no file parts). */
    public static ResponseSend of(ByteBuffer bytes) {
        return new ResponseSend(List.of(bytes));
    }

    /** Total bytes on the wire, size prefix included. */
    public long size() {
        return size;
    }

    public long sent() {
        return sent;
    }

    /** Bytes of this response that go from segment files with transferTo (0 for a response held in memory). */
    public long fileBytes() {
        long n = 0;
        for (Object p : parts) if (p instanceof FileRegionRecords f) n += f.size();
        return n;
    }

    public boolean completed() {
        return part == parts.length;
    }

    /**
     * Writes as much as the socket takes now. Returns true once everything is written.
     *
     * @throws IOException if the socket fails, or a file part's segment was closed (deleted) or cut short before
     *                     its bytes were sent: the response can no longer be completed, so the caller closes the
     *                     connection rather than send a malformed frame
     */
    public boolean writeTo(SocketChannel socket) throws IOException {
        while (part < parts.length) {
            Object p = parts[part];
            long n;
            long left;
            if (p instanceof ByteBuffer b) {
                n = socket.write(b);
                left = b.remaining();
            } else {
                FileRegionRecords f = (FileRegionRecords) p;
                long from = f.position() + sentOfPart;
                left = f.size() - sentOfPart;
                n = f.channel().transferTo(from, left, socket);
                if (n == 0 && from >= f.channel().size()) {
                    throw new EOFException(f.file() + " ends at " + f.channel().size() + " before the " + left
                            + " bytes at " + from + " of a response were sent");
                }
                left -= n;
            }
            sent += n;
            sentOfPart += n;
            if (left > 0) return false; // the socket is full: wait until it is writable
            part++;
            sentOfPart = 0;
        }
        return true;
    }
}
