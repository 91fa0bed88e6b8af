package io.faultline.broker.server;

import io.faultline.broker.api.SupportedApis;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Protocol fuzzer (a main, not a test): runs BrokerMain in its own JVM (-Xmx512m -XX:+ExitOnOutOfMemoryError) and
 * sends it random frames and mutations of valid requests of every advertised API and version from several
 * connections, while a probe connection checks every 100 ms that the broker still answers. Reports crashes
 * (the process died: it is restarted on its data directory), hangs (a probe unanswered for 5 s), frames answered /
 * closed / unanswered, peak RSS, answered probes. At the end the broker is stopped with SIGTERM, restarted on its
 * directory, and a Kafka producer and consumer must still work on the seed topic.
 *
 * <p>Usage: {@code java -cp <test classpath> io.faultline.broker.server.ProtocolFuzz [frames] [seconds] [workDir] [seed]}
 */
public final class ProtocolFuzz {
    private static final int SENTINEL = 0x5E5E5E5E;
    private static final int[] INTERESTING_INTS = {0, -1, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 0x7fff, 0x8000,
            0xffff, 100_000_000, -2, 255, 256};

    private final long seed;
    private final long maxFrames;
    private final long deadlineNanos;
    private final Path work;
    private final int port;
    private Process broker;
    private final List<byte[]> seeds = new ArrayList<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private final AtomicLong lying = new AtomicLong();
    private final AtomicLong silent = new AtomicLong();
    private final AtomicLong probesOk = new AtomicLong();
    private final AtomicLong probesFailed = new AtomicLong();
    private final AtomicLong crashes = new AtomicLong();
    private final AtomicLong peakRssKb = new AtomicLong();
    private final AtomicLong peakFds = new AtomicLong();
    private final Map<String, Long> hangs = new ConcurrentHashMap<>();
    private volatile boolean stop;

    private ProtocolFuzz(long maxFrames, long seconds, Path work, long seed) throws IOException {
        this.seed = seed;
        this.maxFrames = maxFrames;
        this.deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        this.work = work;
        try (ServerSocket s = new ServerSocket(0)) {
            this.port = s.getLocalPort();
        }
    }

    public static void main(String[] args) throws Exception {
        long frames = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 3600;
        Path work = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("faultline-fuzz");
        long seed = args.length > 3 ? Long.parseLong(args[3]) : System.nanoTime();
        System.out.println("random seed " + seed);
        System.exit(new ProtocolFuzz(frames, seconds, work, seed).run());
    }

    private int run() throws Exception {
        Files.createDirectories(work.resolve("data"));
        Properties props = TestBroker.config(work.resolve("data"), port, Map.of("log.segment.bytes", "1048576"));
        try (Writer w = Files.newBufferedWriter(work.resolve("server.properties"))) {
            props.store(w, null);
        }
        startBroker();
        Uuid topicId;
        try (Admin admin = TestBroker.admin(bootstrap())) {
            TestBroker.createTopics(admin, new NewTopic("fz", 2, (short) 1));
            topicId = admin.describeTopics(List.of("fz")).allTopicNames().get().get("fz").topicId();
        }
        buildSeeds(topicId);
        System.out.printf("fuzzing broker on port %d with %d seeds, work dir %s%n", port, seeds.size(), work);
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            long workerSeed = seed + i;
            threads.add(start("worker-" + i, () -> worker(new Random(workerSeed))));
        }
        Thread probe = start("probe", this::probe);
        Thread monitor = start("monitor", this::monitor);
        long lastReport = System.nanoTime();
        while (!stop) {
            Thread.sleep(1000);
            if (sent.get() >= maxFrames || System.nanoTime() > deadlineNanos) stop = true;
            if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(60)) {
                lastReport = System.nanoTime();
                report(start);
            }
        }
        for (Thread t : threads) t.join(30_000);
        probe.join(10_000);
        monitor.join(10_000);
        report(start);
        boolean healthy = finalCheck();
        System.out.println("final check (SIGTERM, restart on the same directory, produce + consume): "
                + (healthy ? "OK" : "FAILED"));
        return healthy && crashes.get() == 0 && hangs.isEmpty() ? 0 : 1;
    }

    private String bootstrap() {
        return "127.0.0.1:" + port;
    }

    private static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private synchronized void startBroker() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path log = work.resolve("broker-" + System.currentTimeMillis() + ".log");
        broker = new ProcessBuilder(java, "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "-cp",
                System.getProperty("java.class.path"), "io.faultline.broker.BrokerMain",
                work.resolve("server.properties").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            if (!broker.isAlive()) throw new IllegalStateException("broker died at startup, see " + log);
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("broker did not listen within 60 s, see " + log);
    }

    // ---------------------------------------------------------------- seeds

    private void buildSeeds(Uuid topicId) {
        for (ApiKeys api : SupportedApis.implemented()) {
            for (short v = api.oldestVersion(); v <= SupportedApis.maxVersion(api); v++) {
                addSeed(api, v, api.messageType.newRequest());
            }
        }
        MemoryRecords plain = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(), "v".getBytes()));
        MemoryRecords gzip = MemoryRecords.withRecords(Compression.gzip().build(),
                new SimpleRecord("k".getBytes(), "gz".getBytes()), new SimpleRecord("k2".getBytes(), "gz2".getBytes()));
        for (short v = ApiKeys.PRODUCE.oldestVersion(); v <= SupportedApis.maxVersion(ApiKeys.PRODUCE); v++) {
            for (MemoryRecords records : List.of(plain, gzip)) {
                ProduceRequestData d = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
                ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData();
                if (v >= 13) t.setTopicId(topicId);
                else t.setName("fz");
                t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                        .setRecords(MemoryRecords.readableRecords(records.buffer().duplicate())));
                d.topicData().add(t);
                addSeed(ApiKeys.PRODUCE, v, d);
            }
        }
        for (short v = ApiKeys.FETCH.oldestVersion(); v <= SupportedApis.maxVersion(ApiKeys.FETCH); v++) {
            FetchRequestData d = new FetchRequestData().setMaxWaitMs(10).setMinBytes(1).setMaxBytes(1 << 16)
                    .setReplicaId(-1);
            FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic();
            if (v >= 13) t.setTopicId(topicId);
            else t.setTopic("fz");
            t.partitions().add(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                    .setPartitionMaxBytes(1 << 16));
            d.topics().add(t);
            addSeed(ApiKeys.FETCH, v, d);
        }
        for (short v = ApiKeys.METADATA.oldestVersion(); v <= SupportedApis.maxVersion(ApiKeys.METADATA); v++) {
            MetadataRequestData m = new MetadataRequestData();
            m.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("fz"));
            addSeed(ApiKeys.METADATA, v, m);
        }
        for (short v = ApiKeys.CREATE_TOPICS.oldestVersion(); v <= SupportedApis.maxVersion(ApiKeys.CREATE_TOPICS); v++) {
            CreateTopicsRequestData d = new CreateTopicsRequestData().setTimeoutMs(1000);
            d.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("fz-new").setNumPartitions(1)
                    .setReplicationFactor((short) 1));
            addSeed(ApiKeys.CREATE_TOPICS, v, d);
        }
    }

    private void addSeed(ApiKeys api, short v, ApiMessage body) {
        try {
            seeds.add(frame(api, v, 1, body));
        } catch (RuntimeException e) {
            // a default field this version cannot carry: skip this seed
        }
    }

    /** Header + body without the length prefix. */
    private static byte[] frame(ApiKeys api, short v, int correlation, ApiMessage body) {
        short hv = api.requestHeaderVersion(v);
        RequestHeaderData h = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(v)
                .setCorrelationId(correlation).setClientId("fuzz");
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = h.size(cache, hv) + body.size(cache, v);
        ByteBuffer buf = ByteBuffer.allocate(size);
        ByteBufferAccessor acc = new ByteBufferAccessor(buf);
        h.write(acc, cache, hv);
        body.write(acc, cache, v);
        return buf.array();
    }

    private static final byte[] SENTINEL_FRAME = frame(ApiKeys.API_VERSIONS, (short) 3, SENTINEL,
            new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1"));

    // ---------------------------------------------------------------- mutation

    private byte[] mutate(Random r) {
        byte[] f = seeds.get(r.nextInt(seeds.size())).clone();
        int ops = 1 + r.nextInt(3);
        for (int i = 0; i < ops; i++) f = mutateOnce(r, f);
        return f;
    }

    private byte[] mutateOnce(Random r, byte[] f) {
        int n = f.length;
        switch (r.nextInt(10)) {
            case 0 -> { // bit flips
                for (int i = 0, k = 1 + r.nextInt(8); i < k && n > 0; i++) f[r.nextInt(n)] ^= (byte) (1 << r.nextInt(8));
                return f;
            }
            case 1 -> { // interesting byte
                if (n > 0) f[r.nextInt(n)] = (byte) new int[] {0, 0xff, 0x7f, 0x80, 1}[r.nextInt(5)];
                return f;
            }
            case 2 -> { // interesting int16/int32 at any offset
                if (n < 4) return f;
                ByteBuffer b = ByteBuffer.wrap(f);
                int at = r.nextInt(n - 3);
                int val = INTERESTING_INTS[r.nextInt(INTERESTING_INTS.length)];
                if (r.nextBoolean()) b.putInt(at, val);
                else b.putShort(at, (short) val);
                return f;
            }
            case 3 -> { // truncate
                return java.util.Arrays.copyOf(f, n == 0 ? 0 : r.nextInt(n));
            }
            case 4 -> { // append random bytes
                byte[] extra = new byte[1 + r.nextInt(64)];
                r.nextBytes(extra);
                byte[] out = java.util.Arrays.copyOf(f, n + extra.length);
                System.arraycopy(extra, 0, out, n, extra.length);
                return out;
            }
            case 5 -> { // delete a range
                if (n < 2) return f;
                int from = r.nextInt(n);
                int len = 1 + r.nextInt(Math.min(16, n - from));
                byte[] out = new byte[n - len];
                System.arraycopy(f, 0, out, 0, from);
                System.arraycopy(f, from + len, out, from, n - from - len);
                return out;
            }
            case 6 -> { // splice with another seed
                byte[] o = seeds.get(r.nextInt(seeds.size()));
                int cut = n == 0 ? 0 : r.nextInt(n);
                int from = o.length == 0 ? 0 : r.nextInt(o.length);
                byte[] out = new byte[cut + o.length - from];
                System.arraycopy(f, 0, out, 0, cut);
                System.arraycopy(o, from, out, cut, o.length - from);
                return out;
            }
            case 7 -> { // random body behind a valid header prefix (first 8 bytes: key, version, correlation)
                byte[] out = new byte[Math.min(n, 8) + r.nextInt(256)];
                System.arraycopy(f, 0, out, 0, Math.min(n, 8));
                for (int i = Math.min(n, 8); i < out.length; i++) out[i] = (byte) r.nextInt(256);
                return out;
            }
            case 8 -> { // duplicate a chunk
                if (n < 2) return f;
                int from = r.nextInt(n);
                int len = 1 + r.nextInt(Math.min(32, n - from));
                byte[] out = new byte[n + len];
                System.arraycopy(f, 0, out, 0, from + len);
                System.arraycopy(f, from, out, from + len, n - from);
                return out;
            }
            default -> { // all random
                byte[] out = new byte[r.nextInt(512)];
                r.nextBytes(out);
                return out;
            }
        }
    }

    // ---------------------------------------------------------------- workers

    private void worker(Random r) {
        Socket s = null;
        while (!stop) {
            try {
                if (s == null) {
                    s = new Socket("127.0.0.1", port);
                    s.setSoTimeout(10_000);
                    s.setTcpNoDelay(true);
                }
                byte[] body = mutate(r);
                long n = sent.incrementAndGet();
                if (n >= maxFrames) stop = true;
                OutputStream out = s.getOutputStream();
                if (r.nextInt(50) == 0) { // a lying length prefix: send and hang up
                    int declared = r.nextBoolean() ? body.length + 1 + r.nextInt(1 << 20) : r.nextInt(Integer.MAX_VALUE);
                    out.write(ByteBuffer.allocate(4 + body.length).putInt(declared).put(body).array());
                    out.flush();
                    lying.incrementAndGet();
                    s.close();
                    s = null;
                    continue;
                }
                ByteBuffer both = ByteBuffer.allocate(8 + body.length + SENTINEL_FRAME.length);
                both.putInt(body.length).put(body).putInt(SENTINEL_FRAME.length).put(SENTINEL_FRAME);
                out.write(both.array());
                out.flush();
                if (readUntilSentinel(new DataInputStream(s.getInputStream()))) continue;
                s.close();
                s = null;
            } catch (SocketTimeoutException e) {
                unanswered.incrementAndGet(); // parked (long fetch, join) or hung: the probe tells which
                s = closeQuietly(s);
            } catch (IOException e) {
                closed.incrementAndGet();
                s = closeQuietly(s);
            }
        }
        closeQuietly(s);
    }

    /** True if the sentinel came back (the fuzz frame answered or silently taken); false if the broker closed. */
    private boolean readUntilSentinel(DataInputStream in) throws IOException {
        boolean fuzzAnswered = false;
        while (true) {
            int size;
            try {
                size = in.readInt();
            } catch (EOFException e) {
                closed.incrementAndGet();
                return false;
            }
            if (size < 4 || size > (64 << 20)) throw new IOException("bad response size " + size);
            int correlation = in.readInt();
            in.skipNBytes(size - 4);
            if (correlation == SENTINEL && !fuzzAnswered) {
                silent.incrementAndGet(); // taken without an answer (acks=0), and the connection still served
                return true;
            }
            if (correlation == SENTINEL) return true;
            fuzzAnswered = true;
            answered.incrementAndGet();
        }
    }

    private static Socket closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // gone
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- probe and monitor

    private void probe() {
        RawClient c = null;
        long failingSince = 0;
        while (!stop) {
            try {
                if (c == null) c = new RawClient(port);
                c.call(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData().setClientSoftwareName("probe")
                        .setClientSoftwareVersion("1"));
                c.call(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
                probesOk.incrementAndGet();
                failingSince = 0;
            } catch (Exception e) {
                probesFailed.incrementAndGet();
                if (failingSince == 0) failingSince = System.nanoTime();
                else if (System.nanoTime() - failingSince > TimeUnit.SECONDS.toNanos(5) && broker.isAlive()) {
                    hangs.merge("probe unanswered > 5 s: " + e, 1L, Long::sum);
                    failingSince = 0;
                }
                try {
                    if (c != null) c.close();
                } catch (IOException ignored) {
                    // gone
                }
                c = null;
            }
            sleep(100);
        }
    }

    private void monitor() {
        while (!stop) {
            Process p = broker;
            if (!p.isAlive()) {
                crashes.incrementAndGet();
                System.out.println("CRASH: broker exited with " + p.exitValue() + "; restarting on its directory");
                try {
                    startBroker();
                } catch (Exception e) {
                    System.out.println("RESTART FAILED: " + e);
                    stop = true;
                }
                continue;
            }
            sampleProcess(p.pid());
            sleep(1000);
        }
    }

    private void sampleProcess(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmHWM:")) {
                    peakRssKb.accumulateAndGet(Long.parseLong(line.replaceAll("\\D", "")), Math::max);
                }
            }
            try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
                peakFds.accumulateAndGet(fds.count(), Math::max);
            }
        } catch (IOException | RuntimeException ignored) {
            // process just went away
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void report(long startNanos) {
        double secs = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf("%.0f s: frames %d (%.0f/s): answered %d, silent %d, closed %d, unanswered after 10 s %d, lying-length %d;"
                        + " crashes %d; hangs %s; probes ok %d failed %d; peak RSS %d MiB; peak fds %d%n",
                secs, sent.get(), sent.get() / secs, answered.get(), silent.get(), closed.get(), unanswered.get(), lying.get(),
                crashes.get(), hangs, probesOk.get(), probesFailed.get(), peakRssKb.get() / 1024, peakFds.get());
    }

    /** SIGTERM, restart on the same directory, then a real producer and consumer on the seed topic. */
    private boolean finalCheck() {
        try {
            sampleProcess(broker.pid());
            broker.destroy();
            if (!broker.waitFor(60, TimeUnit.SECONDS)) {
                System.out.println("clean shutdown took over 60 s");
                broker.destroyForcibly();
                return false;
            }
            long t0 = System.nanoTime();
            startBroker();
            System.out.printf("restart on the fuzzed directory (%d entries) listening after %d ms%n",
                    Files.list(work.resolve("data")).count(), (System.nanoTime() - t0) / 1_000_000);
            // the fuzz may have deleted and re-created "fz" with other partitions: send without a partition
            org.apache.kafka.clients.producer.RecordMetadata md;
            try (KafkaProducer<String, String> p = TestBroker.producer(bootstrap(), Map.of(ProducerConfig.ACKS_CONFIG,
                    "all"))) {
                md = p.send(new ProducerRecord<>("fz", "k", "final")).get(60, TimeUnit.SECONDS);
            }
            boolean seen = false;
            try (KafkaConsumer<String, String> c = TestBroker.consumer(bootstrap(), Map.of())) {
                TopicPartition tp = new TopicPartition("fz", md.partition());
                c.assign(List.of(tp));
                c.seek(tp, md.offset());
                long deadline = System.currentTimeMillis() + 30_000;
                while (!seen && System.currentTimeMillis() < deadline) {
                    for (var rec : c.poll(Duration.ofMillis(200))) seen |= "final".equals(rec.value());
                }
            }
            broker.destroy();
            broker.waitFor(60, TimeUnit.SECONDS);
            return seen;
        } catch (Exception e) {
            System.out.println("final check failed: " + e);
            broker.destroyForcibly();
            return false;
        }
    }
}
