package io.faultline.nemesis.disk;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SegmentFilesTest {
    private static final List<SegmentFiles.Entry> ENTRIES = List.of(
            new SegmentFiles.Entry("t-0/00000000000000000000.log", 1000),
            new SegmentFiles.Entry("t-0/00000000000000000042.log", 300),
            new SegmentFiles.Entry("t-0/00000000000000000042.index", 10485760),
            new SegmentFiles.Entry("t-0/00000000000000000042.timeindex", 10485756),
            new SegmentFiles.Entry("t-0/leader-epoch-checkpoint", 20),
            new SegmentFiles.Entry("__cluster_metadata-0/00000000000000000000.log", 5000),
            new SegmentFiles.Entry("u-1/00000000000000000000.log", 0),
            new SegmentFiles.Entry("meta.properties", 100));

    @Test
    void newestSegmentIsTheHighestBaseOffsetOfAUserPartition() {
        for (int seed = 0; seed < 10; seed++) {
            assertEquals("t-0/00000000000000000042.log",
                    SegmentFiles.newestSegment(ENTRIES, new Random(seed)).orElseThrow().relativePath());
        }
    }

    @Test
    void aNamedPartitionsNewestSegmentIsItsOwnOrNone() {
        var more = new java.util.ArrayList<>(ENTRIES);
        more.add(new SegmentFiles.Entry("v-0/00000000000000000007.log", 70));
        more.add(new SegmentFiles.Entry("v-0/00000000000000000100.log", 50));
        assertEquals("v-0/00000000000000000100.log", SegmentFiles.newestSegmentOf(more, "v-0").orElseThrow().relativePath());
        assertEquals("t-0/00000000000000000042.log", SegmentFiles.newestSegmentOf(more, "t-0").orElseThrow().relativePath());
        assertTrue(SegmentFiles.newestSegmentOf(more, "u-1").isEmpty(), "an empty segment is not torn");
        assertTrue(SegmentFiles.newestSegmentOf(more, "w-0").isEmpty(), "not hosted here");
    }

    @Test
    void indexFilesAreTheOffsetAndTimeIndexes() {
        assertEquals(2, SegmentFiles.indexFiles(ENTRIES, "t-0").size());
        assertTrue(SegmentFiles.indexFiles(ENTRIES, "u-1").isEmpty());
    }

    @Test
    void bitFlipsAreDistinctAndChangeExactlyThatManyBits() {
        byte[] data = new byte[64];
        byte[] before = data.clone();
        List<Long> bits = DiskNemesis.flipBits(data, 5, new Random(3));
        assertEquals(5, bits.size());
        int changed = 0;
        for (int i = 0; i < data.length; i++) changed += Integer.bitCount((data[i] ^ before[i]) & 0xff);
        assertEquals(5, changed);
    }

    @Test
    void budgetIsAStrictMinority() {
        assertEquals(1, DiskNemesis.budget(3));
        assertEquals(2, DiskNemesis.budget(5));
        assertEquals(1, DiskNemesis.budget(4));
        assertEquals(0, DiskNemesis.budget(1));
    }
}
