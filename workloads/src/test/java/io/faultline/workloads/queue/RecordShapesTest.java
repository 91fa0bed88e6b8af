package io.faultline.workloads.queue;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordShapesTest {
    @Test
    void everyShapeOccursAndEachRecordReadsBackAsItsValue() {
        int padded = 0, large = 0, headed = 0, bare = 0;
        int longest = 0;
        for (int key = 0; key < 20; key++) {
            for (long v = 0; v < 500; v++) {
                String raw = RecordShapes.value(key, v);
                List<Header> h = RecordShapes.headers(key, v);
                assertEquals(v, RecordShapes.parse(key, raw, h), raw.length() + " chars");
                assertEquals(raw, RecordShapes.value(key, v), "a pure function of key and value");
                if (raw.indexOf(':') > 0) padded++;
                if (raw.length() > 32 * 1024) large++;
                if (h.isEmpty()) bare++; else headed++;
                longest = Math.max(longest, raw.length());
            }
        }
        // 10,000 records: about 40 % padded, 1 % past 40 KiB, half with headers
        assertTrue(padded > 3000 && padded < 5000, "padded " + padded);
        assertTrue(large > 50 && large < 200, "large " + large);
        assertTrue(headed > 4000 && bare > 4000, headed + " with headers, " + bare + " without");
        assertTrue(longest <= 80 * 1024 + 24 && longest > 64 * 1024, "longest " + longest);
    }

    @Test
    void theHottestKeysNinthValueIsLarge() {
        // ShapedRecordsDockerTest relies on it: its first seconds always send one record past 32 KiB
        assertTrue(RecordShapes.value(0, 9).length() > 40 * 1024, "length " + RecordShapes.value(0, 9).length());
    }

    @Test
    void aRecordWithAnyByteOffIsUnparseable() {
        int key = 3;
        long v = 0;
        while (RecordShapes.paddingLength(key, v) < 100 || RecordShapes.headers(key, v).isEmpty()) v++;
        String raw = RecordShapes.value(key, v);
        List<Header> h = RecordShapes.headers(key, v);
        char[] flipped = raw.toCharArray();
        flipped[raw.length() - 50] = flipped[raw.length() - 50] == 'a' ? 'b' : 'a';
        assertEquals(KafkaQueueClient.UNPARSEABLE, RecordShapes.parse(key, new String(flipped), h), "a padding byte changed");
        assertEquals(KafkaQueueClient.UNPARSEABLE, RecordShapes.parse(key, raw.substring(0, raw.length() - 1), h), "cut short");
        assertEquals(KafkaQueueClient.UNPARSEABLE, RecordShapes.parse(key + 1, raw, h), "served from another partition");
        assertEquals(KafkaQueueClient.UNPARSEABLE, RecordShapes.parse(key, raw, List.of()), "headers dropped");
        List<Header> other = new ArrayList<>(h);
        other.set(0, new RecordHeader(other.get(0).key(), "999".getBytes(StandardCharsets.UTF_8)));
        assertEquals(KafkaQueueClient.UNPARSEABLE, RecordShapes.parse(key, raw, other), "a header's value changed");
        assertEquals(KafkaQueueClient.UNPARSEABLE, RecordShapes.parse(key, null, h));
        assertEquals(KafkaQueueClient.UNPARSEABLE, RecordShapes.parse(key, "x:" + raw, h));
        assertEquals(v, RecordShapes.parse(key, raw, h));
    }
}
