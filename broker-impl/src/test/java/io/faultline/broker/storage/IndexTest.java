package io.faultline.broker.storage;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexTest {
    @TempDir
    Path dir;

    @Test
    void offsetIndexLookupAtEdges() throws Exception {
        OffsetIndex idx = new OffsetIndex(dir.resolve("00000000000000000100.index"), 100, 1024);
        assertEquals(new OffsetIndex.Entry(100, 0), idx.lookup(50)); // below base
        assertEquals(new OffsetIndex.Entry(100, 0), idx.lookup(100)); // empty
        idx.append(109, 400);
        idx.append(119, 800);
        assertEquals(new OffsetIndex.Entry(100, 0), idx.lookup(108));
        assertEquals(new OffsetIndex.Entry(109, 400), idx.lookup(109));
        assertEquals(new OffsetIndex.Entry(109, 400), idx.lookup(118));
        assertEquals(new OffsetIndex.Entry(119, 800), idx.lookup(Long.MAX_VALUE));
        assertThrows(IllegalStateException.class, () -> idx.append(119, 900));
        assertThrows(IllegalStateException.class, () -> idx.append(130, 800));
        idx.flush(true);
        assertEquals(16, Files.size(idx.file()));
        OffsetIndex reloaded = new OffsetIndex(idx.file(), 100, 1024);
        assertTrue(reloaded.load(1000, 130));
        assertEquals(new OffsetIndex.Entry(119, 800), reloaded.lookup(125));
        assertFalse(new OffsetIndex(idx.file(), 100, 1024).load(700, 130)); // position beyond the log
        idx.truncateTo(119);
        assertEquals(1, idx.entries());
        assertEquals(8, Files.size(idx.file()));
    }

    @Test
    void timeIndexKeepsOnlyIncreasingTimestamps() throws Exception {
        TimeIndex idx = new TimeIndex(dir.resolve("00000000000000000000.timeindex"), 0, 1024);
        assertEquals(new TimeIndex.Entry(-1, 0), idx.lookup(5));
        idx.maybeAppend(1000, 9, false);
        idx.maybeAppend(900, 19, false); // older timestamp: skipped
        idx.maybeAppend(2000, 29, false);
        assertEquals(2, idx.entries());
        assertEquals(new TimeIndex.Entry(1000, 9), idx.lookup(1999));
        assertEquals(new TimeIndex.Entry(2000, 29), idx.lookup(2000));
        assertEquals(new TimeIndex.Entry(-1, 0), idx.lookup(999));
        assertThrows(IllegalStateException.class, () -> idx.maybeAppend(3000, 5, false));
        idx.flush(false);
        assertEquals(24, Files.size(idx.file()));
        TimeIndex reloaded = new TimeIndex(idx.file(), 0, 1024);
        assertTrue(reloaded.load(30));
        assertFalse(new TimeIndex(idx.file(), 0, 1024).load(20)); // offset beyond the log end
    }
}
