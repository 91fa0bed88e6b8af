package io.faultline.broker.network.bench;

import io.faultline.broker.network.ResponseSend;
import io.faultline.broker.network.ResponseSerializer;
import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Not a test: the broker's consumer-fetch send path over loopback, copied (log read into the heap, serialized, written)
 * against zero-copy (file region, framing buffer, transferTo), alternating rounds. Each round fetches a ~50 MB
 * partition (100 KiB batches of 1 KiB records, as ProducerPerformance writes them) in 1 MiB fetches to a reader thread
 * that discards the bytes; prints wall time and the sending thread's CPU time per round, then medians.
 * Run: java -cp broker-impl/target/test-classes:broker-impl/target/classes:CP io.faultline.broker.network.bench.FetchSendBenchmark [rounds]
 */
public final class FetchSendBenchmark {
    private static final short FETCH_V16 = 16;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        Path dir = Files.createTempDirectory("fetch-send-bench");
        LogConfig cfg = LogConfig.builder().segmentBytes(1 << 30).indexIntervalBytes(4096).retentionMs(-1).build();
        PartitionLog log = PartitionLog.open(dir.resolve("bench-0"), cfg, io.faultline.broker.common.Time.SYSTEM,
                RecoveryState.UNKNOWN);
        byte[] value = new byte[1024];
        for (int b = 0; b < 500; b++) {
            SimpleRecord[] rs = new SimpleRecord[100];
            for (int i = 0; i < rs.length; i++) rs[i] = new SimpleRecord(System.currentTimeMillis(), null, value);
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, rs), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Double> copyMs = new ArrayList<>(), zeroMs = new ArrayList<>(), copyCpu = new ArrayList<>(), zeroCpu = new ArrayList<>();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            SocketChannel reader = SocketChannel.open(server.getLocalAddress());
            Thread drain = new Thread(() -> {
                ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
                try {
                    while (reader.read(buf.clear()) >= 0) {
                        // discard
                    }
                } catch (Exception ignored) {
                    // closed at the end
                }
            });
            drain.setDaemon(true);
            drain.start();
            try (SocketChannel writer = server.accept(); Selector sel = Selector.open()) {
                writer.configureBlocking(false);
                SelectionKey key = writer.register(sel, 0);
                for (int r = 0; r <= rounds; r++) { // round 0 warms both paths up and is not counted
                    for (boolean zeroCopy : new boolean[] {false, true}) {
                        long cpu0 = mx.getCurrentThreadCpuTime(), t0 = System.nanoTime(), bytes = 0;
                        long offset = 0;
                        while (offset < log.logEndOffset()) {
                            ResponseSend send;
                            long next;
                            if (zeroCopy) {
                                PartitionLog.SliceRead res = log.readForSend(offset, 1 << 20, log.highWatermark());
                                send = ResponseSerializer.serializeForSend(ApiKeys.FETCH, FETCH_V16, 1, response(res.records()));
                                next = res.nextOffset();
                            } else {
                                var res = log.read(offset, 1 << 20, log.highWatermark());
                                send = ResponseSend.of(ResponseSerializer.serialize(ApiKeys.FETCH, FETCH_V16, 1,
                                        response(res.records())));
                                next = res.nextOffset();
                            }
                            while (!send.writeTo(writer)) {
                                key.interestOps(SelectionKey.OP_WRITE);
                                sel.select();
                                sel.selectedKeys().clear();
                                key.interestOps(0);
                            }
                            bytes += send.size();
                            offset = next;
                        }
                        double ms = (System.nanoTime() - t0) / 1e6, cpuMs = (mx.getCurrentThreadCpuTime() - cpu0) / 1e6;
                        System.out.printf("round %d %-9s %d MB in %.0f ms (%.0f MB/s), sender CPU %.0f ms%n", r,
                                zeroCopy ? "zero-copy" : "copy", bytes >> 20, ms, bytes / 1e3 / ms, cpuMs);
                        if (r > 0) {
                            (zeroCopy ? zeroMs : copyMs).add(ms);
                            (zeroCopy ? zeroCpu : copyCpu).add(cpuMs);
                        }
                    }
                }
            }
            reader.close();
        }
        log.close();
        System.out.printf("medians of %d rounds: copy %.0f ms (CPU %.0f ms), zero-copy %.0f ms (CPU %.0f ms)%n", rounds,
                median(copyMs), median(copyCpu), median(zeroMs), median(zeroCpu));
    }

    private static FetchResponseData response(BaseRecords records) {
        FetchResponseData resp = new FetchResponseData().setSessionId(0);
        var topic = new FetchResponseData.FetchableTopicResponse().setTopicId(org.apache.kafka.common.Uuid.ONE_UUID);
        topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(0).setRecords(records));
        resp.responses().add(topic);
        return resp;
    }

    private static double median(List<Double> v) {
        List<Double> s = v.stream().sorted().toList();
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }
}
