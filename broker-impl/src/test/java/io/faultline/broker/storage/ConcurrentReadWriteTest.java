package io.faultline.broker.storage;

import io.faultline.broker.common.ManualTime;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One writer (appends, rolls, retention) and several readers: readers only ever see whole, valid batches. */
class ConcurrentReadWriteTest {
    @TempDir
    Path tmp;

    @Test
    void readersSeeOnlyWholeValidContiguousBatches() throws Exception {
        ManualTime clock = new ManualTime(1_000_000);
        LogConfig cfg = LogConfig.builder().segmentBytes(4096).indexIntervalBytes(256).retentionBytes(64 * 1024)
                .retentionMs(-1).fileDeleteDelayMs(0).build();
        PartitionLog log = PartitionLog.open(tmp.resolve("c-0"), cfg, clock, RecoveryState.UNKNOWN);
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicLong batchesRead = new AtomicLong();
        Runnable reader = () -> {
            while (!done.get()) {
                try {
                    long start = log.logStartOffset();
                    long end = log.logEndOffset();
                    if (end <= start) continue;
                    long from = ThreadLocalRandom.current().nextLong(start, end + 1);
                    LogReadResult r = log.read(from, 2048, Long.MAX_VALUE);
                    List<MutableRecordBatch> bs = TestRecords.batches(r.records());
                    long expected = -1;
                    for (MutableRecordBatch b : bs) {
                        b.ensureValid();
                        if (expected >= 0) assertEquals(expected, b.baseOffset());
                        expected = b.lastOffset() + 1;
                        batchesRead.incrementAndGet();
                    }
                    if (!bs.isEmpty()) {
                        assertTrue(bs.get(0).baseOffset() <= from && from <= bs.get(0).lastOffset() || from < bs.get(0).baseOffset());
                    }
                } catch (org.apache.kafka.common.errors.OffsetOutOfRangeException e) {
                    // retention moved the start past our offset: allowed
                } catch (Throwable t) {
                    errors.add(t);
                    return;
                }
            }
        };
        Thread[] readers = {new Thread(reader), new Thread(reader)};
        for (Thread t : readers) t.start();
        for (int i = 0; i < 3000; i++) {
            log.appendAsLeader(TestRecords.batch(1 + i % 7, clock.milliseconds()), 0);
            if (i % 100 == 99) {
                log.updateHighWatermark(log.logEndOffset());
                log.deleteOldSegments();
                log.removeDeletedFiles();
            }
        }
        done.set(true);
        for (Thread t : readers) t.join();
        log.close();
        assertTrue(errors.isEmpty(), () -> errors.peek().toString());
        assertTrue(batchesRead.get() > 0);
        assertTrue(log.logStartOffset() > 0, "retention ran");
    }
}
