package io.faultline.broker.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.common.FileRegionRecords;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Fetch response whose record sets stay in a file: the bytes on the wire equal those of the same response
 * serialized wholly in memory, also when the socket takes only a few KiB at a time (a slow reader), and a file cut
 * short before its bytes were sent fails the send instead of producing a malformed frame.
 */
class ResponseSendTest {
    private static final short FETCH_V12 = 12; // topic names
    private static final short FETCH_V16 = 16; // topic ids, flexible
    private static final org.apache.kafka.common.Uuid TOPIC_ID = org.apache.kafka.common.Uuid.fromString("q3fN8JRSQWmRx7wWmyTbWQ");

    @TempDir
    Path dir;

    @Test
    void fileRegionsGoOnTheWireExactlyAsTheirBytesInMemoryWouldThroughASmallSocketBuffer() throws Exception {
        for (short version : new short[] {FETCH_V12, FETCH_V16}) {
            byte[] content = randomBytes(3 << 20);
            Path file = dir.resolve("segment-" + version + ".log");
            Files.write(file, content);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                int[][] ranges = {{100, 1 << 20}, {(2 << 20) + 7, 300_000}, {5, 0}};
                FetchResponseData inFile = response(version, ranges, r -> new FileRegionRecords(ch, r[0], r[1], "seg"));
                FetchResponseData inMemory = response(version, ranges,
                        r -> MemoryRecords.readableRecords(ByteBuffer.wrap(content, r[0], r[1]).slice()));
                ResponseSend send = ResponseSerializer.serializeForSend(ApiKeys.FETCH, version, 42, inFile);
                assertEquals((1 << 20) + 300_000, send.fileBytes());
                byte[] expected = toArray(ResponseSerializer.serialize(ApiKeys.FETCH, version, 42, inMemory));
                assertEquals(expected.length, send.size());

                SlowTransfer t = transfer(send);
                assertArrayEquals(expected, t.received, "wire bytes at v" + version);
                assertTrue(t.partialWrites > 0, "the small socket buffer never filled: back-pressure not exercised");

                FetchResponseData parsed = parse(t.received, version);
                var partitions = parsed.responses().get(0).partitions();
                for (int i = 0; i < ranges.length; i++) {
                    byte[] got = toArray(((MemoryRecords) partitions.get(i).records()).buffer());
                    assertArrayEquals(Arrays.copyOfRange(content, ranges[i][0], ranges[i][0] + ranges[i][1]), got);
                }
            }
        }
    }

    @Test
    void aFileCutShortBeforeItsBytesWereSentFailsTheSend() throws Exception {
        Path file = dir.resolve("cut.log");
        Files.write(file, randomBytes(1 << 20));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FetchResponseData resp = response(FETCH_V12, new int[][] {{0, 1 << 20}},
                    r -> new FileRegionRecords(ch, r[0], r[1], "cut.log"));
            ResponseSend send = ResponseSerializer.serializeForSend(ApiKeys.FETCH, FETCH_V12, 1, resp);
            ch.truncate(1000); // e.g. retention deleted or truncated the segment after the read
            EOFException e = assertThrows(EOFException.class, () -> transfer(send));
            assertTrue(e.getMessage().contains("cut.log"), e.getMessage());
            assertFalse(send.completed());
        }
    }

    @Test
    void aResponseWithoutFileRegionsIsTheInMemorySerialization() throws Exception {
        FetchResponseData resp = response(FETCH_V16, new int[][] {{0, 10}},
                r -> MemoryRecords.readableRecords(ByteBuffer.wrap(new byte[10])));
        ResponseSend send = ResponseSerializer.serializeForSend(ApiKeys.FETCH, FETCH_V16, 7, resp);
        assertEquals(0, send.fileBytes());
        assertArrayEquals(toArray(ResponseSerializer.serialize(ApiKeys.FETCH, FETCH_V16, 7, resp)), transfer(send).received);
    }

    private record SlowTransfer(byte[] received, int partialWrites) {
    }

    /**
     * Sends over loopback with 4 KiB socket buffers on both ends, the writer non-blocking as in the processor; the
     * reader takes at most 1 KiB whenever the writer is stuck, so most writes are partial.
     */
    private static SlowTransfer transfer(ResponseSend send) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            try (SocketChannel reader = SocketChannel.open()) {
                reader.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
                reader.connect(server.getLocalAddress());
                try (SocketChannel writer = server.accept()) {
                    writer.setOption(StandardSocketOptions.SO_SNDBUF, 4096);
                    writer.configureBlocking(false);
                    reader.configureBlocking(false);
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    ByteBuffer chunk = ByteBuffer.allocate(1024);
                    int partial = 0;
                    boolean done = false;
                    while (!done || got.size() < send.size()) {
                        if (!done) {
                            done = send.writeTo(writer);
                            if (!done) partial++;
                        }
                        chunk.clear();
                        int n = reader.read(chunk);
                        if (n < 0) break;
                        got.write(chunk.array(), 0, n);
                    }
                    return new SlowTransfer(got.toByteArray(), partial);
                }
            }
        }
    }

    private static FetchResponseData response(short version, int[][] ranges,
                                              java.util.function.Function<int[], BaseRecords> records) {
        FetchResponseData resp = new FetchResponseData().setSessionId(0);
        var topic = new FetchResponseData.FetchableTopicResponse();
        if (version >= 13) topic.setTopicId(TOPIC_ID);
        else topic.setTopic("t");
        for (int i = 0; i < ranges.length; i++) {
            topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(i).setHighWatermark(99)
                    .setLastStableOffset(99).setLogStartOffset(0).setRecords(records.apply(ranges[i])));
        }
        resp.responses().add(topic);
        return resp;
    }

    private static FetchResponseData parse(byte[] wire, short version) {
        ByteBuffer buf = ByteBuffer.wrap(wire);
        assertEquals(wire.length - 4, buf.getInt(), "size prefix");
        ByteBufferAccessor acc = new ByteBufferAccessor(buf);
        new org.apache.kafka.common.message.ResponseHeaderData(acc, ApiKeys.FETCH.responseHeaderVersion(version));
        FetchResponseData d = new FetchResponseData();
        d.read(acc, version);
        assertFalse(buf.hasRemaining(), "bytes after the response");
        return d;
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    private static byte[] toArray(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }
}
