package io.faultline.docker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SparseCopyTest {
    @TempDir
    Path dir;

    private byte[] roundTrip(byte[] content) throws Exception {
        Path f = dir.resolve("f" + content.length);
        Files.write(f, new byte[] {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}); // replaced, not merged
        assertEquals(content.length, SparseCopy.copy(new ByteArrayInputStream(content), f));
        assertEquals(content.length, Files.size(f));
        return Files.readAllBytes(f);
    }

    @Test
    void theCopyHasTheStreamsBytesWhereverItsZerosAre() throws Exception {
        int b = SparseCopy.BLOCK;
        byte[] indexLike = new byte[10 * 1024 * 1024]; // a preallocated index: a few entries, then zeros
        for (int i = 0; i < 300; i++) indexLike[i] = (byte) (i % 7 + 1);
        assertArrayEquals(indexLike, roundTrip(indexLike));

        byte[] mixed = new byte[5 * b + 123]; // data, a zero block, data straddling blocks, a trailing zero tail
        new Random(2).nextBytes(mixed);
        java.util.Arrays.fill(mixed, b, 2 * b, (byte) 0);
        java.util.Arrays.fill(mixed, 3 * b + 7, mixed.length, (byte) 0);
        assertArrayEquals(mixed, roundTrip(mixed));

        assertArrayEquals(new byte[0], roundTrip(new byte[0]));
        assertArrayEquals(new byte[b], roundTrip(new byte[b]), "all zeros: a hole of the right length");
        byte[] small = {1, 0, 2};
        assertArrayEquals(small, roundTrip(small));
    }
}
