package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shortcuts the queue analysis takes for speed: offsets in arrays when dense (hash maps otherwise), re-reads
 * of a known record skipping the reader map, and the aborted-read check probing the writer map only where a
 * failed send's value was observed. Each must still see every case the plain maps saw.
 */
class FastIndexTest {
    static final int K = 3;

    @Test
    void offsetTableKeepsDenseAndSparseOffsetsApartAndFindsBoth() {
        OffsetTable t = new OffsetTable();
        t.putNew(0, 100, 5);
        t.putNew(70, 170, 6);             // past the first arrays: they grow
        t.putNew(-4, 96, 7);              // negative: to the map
        t.putNew(1L << 40, 1, 8);         // far past the rest: to the map
        t.putNew(Long.MAX_VALUE, 2, 9);
        for (long[] e : new long[][] {{0, 100, 5}, {70, 170, 6}, {-4, 96, 7}, {1L << 40, 1, 8}, {Long.MAX_VALUE, 2, 9}}) {
            assertTrue(t.contains(e[0]));
            assertEquals(e[1], t.value(e[0], -1));
            assertEquals(e[2], t.op(e[0], -1));
        }
        assertFalse(t.contains(1));
        assertFalse(t.contains(69));
        assertEquals(-1, t.value(1L << 41, -1));
        assertEquals(-1, t.denseSlot(-4));
        assertEquals(70, t.denseSlot(70));
        long[] all = t.offsets();
        Arrays.sort(all);
        assertArrayEquals(new long[] {-4, 0, 70, 1L << 40, Long.MAX_VALUE}, all);
    }

    @Test
    void anOffsetFirstTooFarForTheArraysIsStillFoundOnceTheyReachIt() {
        OffsetTable t = new OffsetTable();
        t.putNew(5000, 1, 0);             // beyond 4 × size + 1024: map
        assertEquals(-1, t.denseSlot(5000));
        for (int o = 0; o < 2000; o++) t.putNew(o, o, o); // now the arrays may reach 5000 and beyond
        t.putNew(6000, 2, 1);             // array
        assertEquals(1, t.value(5000, -1));
        assertEquals(0, t.op(5000, -1));
        assertEquals(2, t.value(6000, -1));
        assertEquals(6000, t.denseSlot(6000));
        assertEquals(2002, t.offsets().length);
    }

    @Test
    void abortedReadFoundAtEveryOffsetOfADuplicatedFailedValue() {
        // 9's send failed, yet the log holds it twice (offsets 1 and 3); both reads are aborted reads.
        H h = new H().send(0, K, 10, 0).send(0, OpType.FAIL, K, 9).send(0, K, 11, 2)
                .poll(1, K, 0, 10, 1, 9).poll(1, K, 2, 11, 3, 9).poll(2, K, 3, 9);
        CheckResult r = QueueChecker.forRun(false).check(h.ops());
        assertEquals(3L, r.count("G1a"), r::toString);
        assertEquals(1L, r.count("duplicate"), r::toString);
    }

    @Test
    void abortedReadFoundAtADivergentOffset() {
        // Offset 1 first showed 12 (sent ok), then another reader saw the failed 9 there.
        H h = new H().send(0, K, 10, 0).send(0, K, 12, 1).send(0, OpType.FAIL, K, 9)
                .poll(1, K, 0, 10, 1, 12).poll(2, K, 0, 10, 1, 9);
        CheckResult r = QueueChecker.forRun(false).check(h.ops());
        assertEquals(1L, r.count("G1a"), r::toString);
        assertEquals(1L, r.count("inconsistent-offsets"), r::toString);
        assertTrue(r.examples().get("G1a").get(0).explanation().contains("polled value 9 at offset 1"));
    }

    @Test
    void abortedReadFoundAtSparseAndNegativeOffsets() {
        H h = new H().send(0, K, 10, 1L << 40).send(0, OpType.FAIL, K, 9).send(0, OpType.FAIL, K, 8)
                .poll(1, K, 1L << 40, 10, (1L << 40) + 1, 9).poll(2, K, -7, 8);
        CheckResult r = QueueChecker.forRun(false).check(h.ops());
        assertEquals(2L, r.count("G1a"), r::toString);
    }

    @Test
    void reReadsByManyConsumersKeepTheFirstReader() {
        // 11 is first delivered to process 2 by an info poll; the later ok re-reads must not replace that reader,
        // and a failed poll (nothing delivered) must not count as a reader at all.
        H h = new H().send(0, K, 10, 0).send(0, K, 11, 1).send(0, K, 12, 2)
                .poll(1, OpType.FAIL, java.util.Map.of(K, H.recs(0, 10, 1, 11, 2, 12)))
                .poll(2, OpType.INFO, java.util.Map.of(K, H.recs(0, 10, 1, 11)))
                .poll(3, K, 0, 10, 1, 11).poll(4, K, 0, 10, 1, 11);
        CheckResult r = QueueChecker.forRun(false).check(h.ops());
        // 12 was only shown by the failed poll: unseen, and lost since op 8 (the info poll) read past nothing.
        assertEquals(1L, r.count("unseen"), r::toString);
        assertTrue(r.examples().get("unseen").get(0).explanation().contains("value 12"), r::toString);
        assertEquals(0L, r.count("lost-write"), r::toString);
    }

    @Test
    void totalQueueStillNamesTheLastReaderOfADuplicateAmongManyReReads() {
        // 7 is first read at offset 1, then at offset 3 by three polls: re-reads at offset 1 change nothing, the
        // example names the first read (op 5) and the last poll that found 7 elsewhere (op 11, not op 7).
        H h = new H().send(0, K, 7, 1).send(0, K, 8, 2)
                .poll(1, K, 1, 7).poll(1, K, 1, 7, 2, 8, 3, 7).poll(2, K, 1, 7).poll(3, K, 3, 7);
        CheckResult r = new TotalQueueChecker().check(h.ops());
        assertEquals(1L, r.count("duplicated"), r::toString);
        assertEquals(java.util.List.of(5L, 11L), r.examples().get("duplicated").get(0).ops(), r::toString);
        assertTrue(r.examples().get("duplicated").get(0).explanation().contains("read at offset 1"), r::toString);
    }
}
