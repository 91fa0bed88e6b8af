package io.faultline.lazyfs;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Many files written at once by several threads, each with its own mix of appends, overwrites, truncations and
 * fsyncs: after a forget every file holds exactly what its last fsync saw (a model kept by its writer).
 */
class ConcurrentWritersTest {
    private static final int WRITERS = 6;
    private static final int FILES_PER_WRITER = 8;
    private static final int STEPS = 60;

    @Test
    void everyFileRevertsToItsLastFsync() throws Exception {
        try (Mounted m = new Mounted()) {
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
            List<Future<Map<Path, byte[]>>> results = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                long seed = 1000 + w;
                Path dir = Files.createDirectories(m.path("w" + w));
                results.add(pool.submit(() -> write(m, dir, new Random(seed))));
            }
            m.syncDir("");
            Map<Path, byte[]> expected = new HashMap<>();
            for (var f : results) expected.putAll(f.get(120, TimeUnit.SECONDS));
            pool.shutdown();
            m.fs.forget(false);
            for (var e : expected.entrySet()) {
                assertArrayEquals(e.getValue(), Files.readAllBytes(e.getKey()), e.getKey().toString());
            }
            assertEquals(WRITERS * FILES_PER_WRITER, expected.size());
        }
    }

    /** Writes random steps to this writer's files; returns each file's content at its last fsync. */
    private static Map<Path, byte[]> write(Mounted m, Path dir, Random r) throws Exception {
        List<Path> paths = new ArrayList<>();
        List<FileChannel> channels = new ArrayList<>();
        List<byte[]> current = new ArrayList<>();
        Map<Path, byte[]> durable = new HashMap<>();
        for (int i = 0; i < FILES_PER_WRITER; i++) {
            Path p = dir.resolve("f" + i);
            paths.add(p);
            channels.add(FileChannel.open(p, CREATE, READ, WRITE));
            current.add(new byte[0]);
            durable.put(p, new byte[0]);
        }
        m.syncDir(m.mount.relativize(dir).toString()); // every entry durable; contents empty so far
        try {
            for (int s = 0; s < STEPS; s++) {
                int i = r.nextInt(FILES_PER_WRITER);
                FileChannel ch = channels.get(i);
                byte[] now = current.get(i);
                int kind = r.nextInt(10);
                if (kind < 5) { // append
                    byte[] data = randomBytes(r, 1 + r.nextInt(20_000));
                    ch.write(ByteBuffer.wrap(data), now.length);
                    var out = new ByteArrayOutputStream();
                    out.write(now);
                    out.write(data);
                    now = out.toByteArray();
                } else if (kind < 7 && now.length > 0) { // overwrite inside
                    int at = r.nextInt(now.length);
                    byte[] data = randomBytes(r, 1 + r.nextInt(5_000));
                    ch.write(ByteBuffer.wrap(data), at);
                    byte[] next = Arrays.copyOf(now, Math.max(now.length, at + data.length));
                    System.arraycopy(data, 0, next, at, data.length);
                    now = next;
                } else if (kind < 8 && now.length > 0) { // truncate
                    int to = r.nextInt(now.length);
                    ch.truncate(to);
                    now = Arrays.copyOf(now, to);
                } else { // fsync
                    ch.force(r.nextBoolean());
                    durable.put(paths.get(i), now);
                }
                current.set(i, now);
            }
        } finally {
            for (FileChannel ch : channels) ch.close();
        }
        return durable;
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }
}
