package io.faultline.docker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What GNU tar's sparse archives (as a node's own tar writes them) become on the host: the same files, byte for byte. */
class SparseTarCopyTest {
    private static byte[] tarOf(Path dir, String name) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("tar", "-c", "-S", "-f", "-", "-C", dir.toString(), name).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        return out;
    }

    private static boolean gnuTar() {
        try {
            Process p = new ProcessBuilder("tar", "--version").redirectErrorStream(true).start();
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).contains("GNU tar") && p.waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    void sparseAndPlainFilesArriveWithTheirBytesAndFolders(@TempDir Path src, @TempDir Path dst) throws Exception {
        assumeTrue(gnuTar(), "GNU tar on this machine writes the archive a node's tar would");
        Path data = Files.createDirectories(src.resolve("data/topic-0"));
        Path index = data.resolve("00000000000000000000.index");
        try (var f = new RandomAccessFile(index.toFile(), "rw")) {
            f.setLength(10 << 20); // preallocated, as a broker does: a hole
            f.seek(3 << 20);
            f.write("entry at three MiB".getBytes(StandardCharsets.UTF_8));
            f.seek((9 << 20) + 17);
            f.write(new byte[]{1, 2, 3, 4, 5});
        }
        Path hollow = data.resolve("00000000000000000000.timeindex");
        try (var f = new RandomAccessFile(hollow.toFile(), "rw")) {
            f.setLength(10 << 20); // nothing but a hole
        }
        byte[] log = new byte[200_000];
        Arrays.fill(log, (byte) 7);
        Files.write(data.resolve("00000000000000000000.log"), log);
        Files.writeString(data.resolve("leader-epoch-checkpoint"), "0\n1\n0 0\n");
        Files.createDirectories(src.resolve("data/empty-dir"));

        byte[] tar = tarOf(src, "data");
        assertEquals(true, tar.length < (1 << 20), "the holes never travel: " + tar.length + " bytes");
        SparseTarCopy.extract(new java.io.ByteArrayInputStream(tar), dst);

        for (String f : new String[]{"topic-0/00000000000000000000.index", "topic-0/00000000000000000000.timeindex",
                "topic-0/00000000000000000000.log", "topic-0/leader-epoch-checkpoint"}) {
            assertArrayEquals(Files.readAllBytes(src.resolve("data").resolve(f)), Files.readAllBytes(dst.resolve("data").resolve(f)), f);
        }
        assertEquals(true, Files.isDirectory(dst.resolve("data/empty-dir")));
    }
}
