package io.faultline.broker.storage.bench;


import io.faultline.broker.storage.LogConfig;
import io.faultline.broker.storage.LogReadResult;
import io.faultline.broker.storage.PartitionLog;
import io.faultline.broker.storage.RecoveryState;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Append and sequential-read throughput of our {@link PartitionLog} against Kafka 4.4.0's own UnifiedLog under the
 * same settings: 1 KiB records, 100 per uncompressed v2 batch, segment.bytes 1 GiB, index.interval.bytes 4096, no
 * fsync per append (Kafka's default), leader appends. The append benchmark empties the log every 1000 appends
 * (~100 MiB, truncateFullyAndStartAt on both) so it measures the write path through the page cache rather than
 * the shared machine's disk writeback, which made numbers swing 4x between runs. Reads fetch 1 MiB from the log end side of a 256 MiB log,
 * sequentially, and copy the bytes into a heap buffer for both (ours returns heap MemoryRecords; Kafka's FileRecords
 * slice is read with readInto, i.e. the same bytes end up in memory — Kafka's sendfile zero-copy is not modelled).
 *
 * <p>Not a test (surefire never runs it). Run it by hand from the repository root:
 * <pre>
 * ./mvnw -B -pl broker-impl test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * cd broker-impl &amp;&amp; java -cp target/test-classes:target/classes:$(cat target/bench.cp) org.openjdk.jmh.Main LogThroughputBenchmark
 * </pre>
 * Compare the JMH scores (wall clock) and the {@code [cpu] ... opsPerCpuSecond} lines of the measurement
 * iterations (the last 5 of each 8 per implementation).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 4)
@Fork(value = 1, jvmArgs = {"-Xms1g", "-Xmx1g"})
public class LogThroughputBenchmark {

    static final int RECORD_SIZE = 1024;
    static final int RECORDS_PER_BATCH = 100;
    static final int READ_BYTES = 1 << 20;
    static final long READ_LOG_BYTES = 256L << 20;

    static MemoryRecords newBatch() {
        SimpleRecord[] rs = new SimpleRecord[RECORDS_PER_BATCH];
        byte[] value = new byte[RECORD_SIZE];
        for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 31);
        long now = System.currentTimeMillis();
        for (int i = 0; i < rs.length; i++) rs[i] = new SimpleRecord(now, null, value);
        return MemoryRecords.withRecords(Compression.NONE, rs);
    }

    /** Offsets are rewritten in place by both logs; reset them so every append looks like a fresh producer batch. */
    static void resetToProducerOffsets(MemoryRecords records) {
        for (MutableRecordBatch b : records.batches()) b.setLastOffset(b.lastOffset() - b.baseOffset());
    }

    /** One log of either implementation. */
    public abstract static class Subject {
        abstract void append(MemoryRecords records) throws IOException;

        /** Reads up to READ_BYTES from offset into the heap; returns the next offset. */
        abstract long read(long offset, Blackhole bh) throws IOException;

        abstract long logEndOffset();

        /** Empties the log (same operation on both) so appends measure the write path, not the disk filling. */
        abstract void restartEmpty() throws IOException;

        abstract void close() throws IOException;

        static Subject create(String impl, Path dir) throws IOException {
            return impl.equals("faultline") ? new Ours(dir) : new Kafkas(dir);
        }
    }

    static final class Ours extends Subject {
        final PartitionLog log;

        Ours(Path dir) throws IOException {
            LogConfig cfg = LogConfig.builder().segmentBytes(1 << 30).indexIntervalBytes(4096).retentionMs(-1).build();
            log = PartitionLog.open(dir.resolve("bench-0"), cfg, io.faultline.broker.common.Time.SYSTEM, RecoveryState.UNKNOWN);
        }

        @Override
        void append(MemoryRecords records) {
            log.appendAsLeader(records, 0);
        }

        @Override
        long read(long offset, Blackhole bh) {
            LogReadResult r = log.read(offset, READ_BYTES, Long.MAX_VALUE);
            bh.consume(r.records().buffer());
            return r.nextOffset();
        }

        @Override
        long logEndOffset() {
            return log.logEndOffset();
        }

        @Override
        void restartEmpty() {
            log.truncateFullyAndStartAt(log.logEndOffset());
        }

        @Override
        void close() {
            log.close();
        }
    }

    static final class Kafkas extends Subject {
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        final UnifiedLog log;

        Kafkas(Path dir) throws IOException {
            scheduler.startup();
            org.apache.kafka.storage.internals.log.LogConfig cfg = new org.apache.kafka.storage.internals.log.LogConfig(
                    Map.of("segment.bytes", String.valueOf(1 << 30), "index.interval.bytes", "4096",
                            "retention.ms", "-1", "file.delete.delay.ms", "0"));
            File d = dir.resolve("bench-0").toFile();
            log = UnifiedLog.create(d, cfg, 0L, 0L, scheduler, new BrokerTopicStats(), Time.SYSTEM, 5 * 60 * 1000,
                    new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), true,
                    Optional.empty());
        }

        @Override
        void append(MemoryRecords records) throws IOException {
            log.appendAsLeader(records, 0);
        }

        @Override
        long read(long offset, Blackhole bh) throws IOException {
            var info = log.read(offset, READ_BYTES, FetchIsolation.LOG_END, true);
            Records recs = info.records;
            ByteBuffer buf = ByteBuffer.allocate(recs.sizeInBytes());
            if (recs instanceof FileRecords fr) fr.readInto(buf, 0);
            bh.consume(buf);
            long next = offset;
            for (var b : recs.batches()) next = b.nextOffset();
            return next;
        }

        @Override
        long logEndOffset() {
            return log.logEndOffset();
        }

        @Override
        void restartEmpty() {
            log.truncateFullyAndStartAt(log.logEndOffset(), Optional.empty());
        }

        @Override
        void close() throws IOException {
            log.close();
            try {
                scheduler.shutdown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The machine is shared (load averages of 10-25 on 2 cores were seen), so wall-clock scores swing widely. Each
     * iteration therefore also reports operations per CPU-second of the benchmark thread (user + system time, which
     * includes the kernel's page-cache copies), a figure other processes disturb much less.
     */
    static final class CpuMeter {
        private static final java.lang.management.ThreadMXBean THREADS =
                java.lang.management.ManagementFactory.getThreadMXBean();
        long ops;
        long cpuStart;

        void start() {
            ops = 0;
            cpuStart = THREADS.getCurrentThreadCpuTime();
        }

        void stop(String what, String impl) {
            double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            System.out.printf("%n[cpu] %s %s ops=%d cpuSeconds=%.3f opsPerCpuSecond=%.1f%n", what, impl, ops,
                    cpuSeconds, ops / cpuSeconds);
        }
    }

    @State(Scope.Thread)
    public static class AppendState {
        @Param({"faultline", "kafka"})
        public String impl;
        Path dir;
        Subject subject;
        MemoryRecords batch;
        int appendsSinceRestart;
        final CpuMeter cpu = new CpuMeter();

        @Setup(Level.Iteration)
        public void setUp() throws IOException {
            dir = Files.createTempDirectory("logbench-append");
            subject = Subject.create(impl, dir);
            batch = newBatch();
            cpu.start();
        }

        @TearDown(Level.Iteration)
        public void tearDown() throws IOException {
            cpu.stop("append", impl);
            subject.close();
            Utils.delete(dir.toFile()); // keep the disk from filling up across iterations
        }
    }

    @State(Scope.Thread)
    public static class ReadState {
        @Param({"faultline", "kafka"})
        public String impl;
        Path dir;
        Subject subject;
        long next;
        final CpuMeter cpu = new CpuMeter();

        @Setup(Level.Iteration)
        public void startIteration() {
            cpu.start();
        }

        @TearDown(Level.Iteration)
        public void stopIteration() {
            cpu.stop("sequentialRead", impl);
        }

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            dir = Files.createTempDirectory("logbench-read");
            subject = Subject.create(impl, dir);
            MemoryRecords batch = newBatch();
            long written = 0;
            while (written < READ_LOG_BYTES) {
                resetToProducerOffsets(batch);
                subject.append(batch);
                written += batch.sizeInBytes();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            subject.close();
            Utils.delete(dir.toFile());
        }
    }

    /** Appends kept per log before it is emptied: ~100 MiB, so dirty pages rarely reach the disk. */
    static final int APPENDS_PER_LOG = 1000;

    @Benchmark
    public void append(AppendState s) throws IOException {
        if (++s.appendsSinceRestart == APPENDS_PER_LOG) {
            s.subject.restartEmpty();
            s.appendsSinceRestart = 0;
        }
        resetToProducerOffsets(s.batch);
        s.subject.append(s.batch);
        s.cpu.ops++;
    }

    @Benchmark
    public void sequentialRead(ReadState s, Blackhole bh) throws IOException {
        long n = s.subject.read(s.next, bh);
        s.cpu.ops++;
        s.next = n >= s.subject.logEndOffset() ? 0 : n;
    }
}
