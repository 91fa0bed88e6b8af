package io.faultline.workloads.queue;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Records of many shapes, each a pure function of its key and value, so a reader can check every byte it was served.
 * A queue value {@code v} is sent as {@code "v"} or {@code "v:" + padding}, with zero, one or two headers:
 * <ul>
 *   <li>sizes from a few bytes to 80 KiB: most records small, some past the codecs' block and chunk sizes (2, 16, 64
 *       KiB), a producer's batch size (16 KiB) and a consumer's per-partition fetch size, so a batch larger than a
 *       fetch asked for (which Kafka must still return whole) and multi-block compressed batches occur in every run;</li>
 *   <li>padding of random letters and digits (compressible, but not to nothing);</li>
 *   <li>headers, one with a value and one without.</li>
 * </ul>
 * A record whose padding or headers differ from what its key and value say was corrupted somewhere between the
 * producer and the reader: {@link #parse} answers {@link KafkaQueueClient#UNPARSEABLE} for it, which no send ever
 * wrote, so the checkers see a value nobody sent at that offset. Only for brokers that take record headers (Kafka 0.11+).
 */
public final class RecordShapes {
    static final char SEPARATOR = ':';
    static final String KEY_HEADER = "fl-key", EMPTY_HEADER = "fl-empty";
    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    private RecordShapes() {}

    /** The bits every shape decision of a record comes from. */
    static long mix(int key, long value) {
        long z = value * 0x9E3779B97F4A7C15L + key * 0xC2B2AE3D27D4EB4FL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** How many padding characters the record of {@code key} and {@code value} carries. */
    static int paddingLength(int key, long value) {
        long m = mix(key, value);
        int bucket = (int) Math.floorMod(m, 100L);
        int r = (int) ((m >>> 8) & 0x7fffffff);
        if (bucket < 60) return 0;
        if (bucket < 85) return 8 + r % 248;              // up to 255 B
        if (bucket < 95) return 256 + r % 3840;           // up to 4 KiB
        if (bucket < 99) return 4096 + r % (16 * 1024);   // up to 20 KiB
        return 40 * 1024 + r % (40 * 1024);               // 40–80 KiB
    }

    /** The value as sent: the number, then the padding if it has one. */
    public static String value(int key, long value) {
        int n = paddingLength(key, value);
        if (n == 0) return Long.toString(value);
        SplittableRandom random = new SplittableRandom(mix(key, value));
        StringBuilder b = new StringBuilder(24 + n).append(value).append(SEPARATOR);
        for (int i = 0; i < n; i++) b.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        return b.toString();
    }

    /** The headers the record carries: none, the key, or the key and a header without a value. */
    public static List<Header> headers(int key, long value) {
        int kind = (int) ((mix(key, value) >>> 40) & 3);
        List<Header> out = new ArrayList<>(2);
        if (kind >= 2) out.add(new RecordHeader(KEY_HEADER, Integer.toString(key).getBytes(StandardCharsets.UTF_8)));
        if (kind == 3) out.add(new RecordHeader(EMPTY_HEADER, (byte[]) null));
        return out;
    }

    /** The value a record read from {@code key}'s partition stands for, or UNPARSEABLE when any byte of it is off. */
    public static long parse(int key, String raw, Iterable<Header> headers) {
        if (raw == null) return KafkaQueueClient.UNPARSEABLE;
        int sep = raw.indexOf(SEPARATOR);
        long value;
        try {
            value = Long.parseLong(sep < 0 ? raw : raw.substring(0, sep));
        } catch (NumberFormatException e) {
            return KafkaQueueClient.UNPARSEABLE;
        }
        if (!raw.equals(value(key, value)) || !sameHeaders(headers(key, value), headers)) return KafkaQueueClient.UNPARSEABLE;
        return value;
    }

    private static boolean sameHeaders(List<Header> want, Iterable<Header> got) {
        List<Header> have = new ArrayList<>();
        if (got != null) got.forEach(have::add);
        if (have.size() != want.size()) return false;
        for (int i = 0; i < want.size(); i++) {
            if (!want.get(i).key().equals(have.get(i).key()) || !Arrays.equals(want.get(i).value(), have.get(i).value())) return false;
        }
        return true;
    }
}
