package io.faultline.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.junit.jupiter.api.Test;

class ProducerStateManagerTest {
    private final ProducerStateManager psm = new ProducerStateManager();

    private void append(long pid, short epoch, int first, int last, long offset) {
        assertTrue(psm.check(pid, epoch, first, last).isEmpty());
        psm.update(pid, epoch, new ProducerStateManager.BatchMetadata(first, last, offset, offset + last - first, 0));
    }

    @Test
    void theLastFiveBatchesAreRecognisedAsDuplicatesOlderOnesAreOutOfOrder() {
        for (int i = 0; i < 6; i++) append(1, (short) 0, i * 10, i * 10 + 9, i * 10L);
        for (int i = 1; i < 6; i++) {
            assertEquals(i * 10L, psm.check(1, (short) 0, i * 10, i * 10 + 9).orElseThrow().firstOffset());
        }
        assertThrows(OutOfOrderSequenceException.class, () -> psm.check(1, (short) 0, 0, 9), "outside the window");
        assertThrows(OutOfOrderSequenceException.class, () -> psm.check(1, (short) 0, 70, 79), "a gap");
        assertTrue(psm.check(1, (short) 0, 60, 61).isEmpty(), "the next sequence");
    }

    @Test
    void epochsFenceAndRestartSequences() {
        append(2, (short) 3, 0, 4, 0);
        assertThrows(InvalidProducerEpochException.class, () -> psm.check(2, (short) 2, 5, 5));
        assertThrows(OutOfOrderSequenceException.class, () -> psm.check(2, (short) 4, 5, 5));
        append(2, (short) 4, 0, 0, 5);
        assertThrows(InvalidProducerEpochException.class, () -> psm.check(2, (short) 3, 5, 5));
        assertTrue(psm.check(99, (short) 0, 42, 43).isEmpty(), "an unknown producer may start anywhere");
        assertThrows(OutOfOrderSequenceException.class, () -> psm.check(99, (short) 0, 42, 43, true),
                "unless the log holds every batch ever appended");
        assertTrue(psm.check(99, (short) 0, 0, 1, true).isEmpty());
    }

    @Test
    void sequencesWrapAround() {
        append(3, (short) 0, Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 0);
        assertTrue(psm.check(3, (short) 0, 0, 3).isEmpty());
    }
}
