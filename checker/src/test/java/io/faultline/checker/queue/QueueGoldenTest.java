package io.faultline.checker.queue;

import io.faultline.checker.CheckResult;
import io.faultline.checker.bench.SyntheticHistory;
import io.faultline.checker.history.Op;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins both queue checkers' complete results (verdicts, counts, stats, every example's wording and their order)
 * on histories with every anomaly planted, dense and sparse offsets, one poll or split polls per op. The digests
 * were computed with the checkers as they were before their indexes were reworked for speed (main at eaddab0):
 * a faster index must not change one byte of what `analyze` writes. If a deliberate change of wording or
 * ordering breaks this, recompute the digests and say so in the commit. Recomputed once since: three new categories
 * (assigned-poll-skip, assigned-nonmonotonic-poll, offset-gap) add their counts to every result, and the sparse
 * histories' spread-out offsets count as (allowed) holes. And again: group-rewind's count and the two
 * group-commit stats join every result (these histories have no subscribes, so nothing else changes).
 */
class QueueGoldenTest {
    static String fingerprint(List<Op> history) throws Exception {
        StringBuilder all = new StringBuilder();
        for (boolean subscribe : new boolean[] {false, true}) {
            CheckResult q = QueueChecker.forRun(subscribe).check(history);
            all.append(q).append('\n');
        }
        all.append(new TotalQueueChecker().check(history)).append('\n');
        all.append(new CorruptReadChecker(QueueChecker.DEFAULT_MAX_EXAMPLES).check(history)).append('\n');
        byte[] d = MessageDigest.getInstance("SHA-256").digest(all.toString().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(d);
    }

    /** Between them, these plant every kind the synthetic history can (see the test below). */
    static final int[][] SEEDS_AND_SIZES = {{11, 20_000}, {12, 60_000}, {13, 60_000}};

    static String fingerprints() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int[] seedAndSize : SEEDS_AND_SIZES) {
            int seed = seedAndSize[0];
            List<Op> planted = SyntheticHistory.generate(seed, seedAndSize[1], 6, true).ops();
            sb.append(seed).append(" dense ").append(fingerprint(planted)).append('\n');
            sb.append(seed).append(" sparse ").append(fingerprint(QueueIndexEquivalenceTest.sparse(planted)))
                    .append('\n');
            sb.append(seed).append(" split ").append(fingerprint(QueueIndexEquivalenceTest.splitPolls(planted)))
                    .append('\n');
        }
        return sb.toString();
    }

    @Test
    void resultsAreExactlyThoseOfTheOriginalIndexes() throws Exception {
        assertEquals(GOLDEN, fingerprints());
    }

    @Test
    void theHistoriesDoPlantEveryKindOfAnomaly() {
        java.util.Set<String> planted = new java.util.TreeSet<>();
        for (int[] seedAndSize : SEEDS_AND_SIZES) {
            QueueChecker.forRun(false).check(SyntheticHistory.generate(seedAndSize[0], seedAndSize[1], 6, true).ops())
                    .counts().forEach((kind, n) -> {
                        if (n > 0) planted.add(kind);
                    });
        }
        assertTrue(planted.containsAll(List.of("G1a", "duplicate", "inconsistent-offsets", "lost-write", "unseen",
                "poll-skip", "nonmonotonic-poll", "int-poll-skip", "int-nonmonotonic-send")), planted::toString);
    }

    public static void main(String[] args) throws Exception {
        System.out.print(fingerprints());
    }

    static final String GOLDEN = """
            11 dense d8e29e88f2e1c3b1dd806748c311dbdc0bf17c3208ba18b30192d90143957750
            11 sparse 90c328e5406d075f8195be1e0c6479b4a3aae7a6b85acf9ebbf473c2d73fe5ba
            11 split 6061f9318d0e58ce5b3303cf0b188a70ea2da017686f18ad2f953e901827dc8b
            12 dense 0a7a0e97e2752a512ef42400a7a493826f7a21a8a3ab45974b3de789efdc9158
            12 sparse 3f2816c11844a26026a7e77e044c30b28db7ca9ab2195d978fa72367a1af456a
            12 split a7d7f3ff85091d79cad0c4f1cb9ffe1dd76ae43b98fd76a7978b65b98f505e22
            13 dense a22f60cf1eb190d1b901b2fc1e4926bd62c74b6075389183744fa49f43ac24fd
            13 sparse a4420627c72d79bb3879149ace9e992dc5244d1f91d8165ae1a9203c9ea71ad8
            13 split 03762173ba28e272a090d75f5cb866fd1f605f9d4f8e1cfe6cad179271390ae4
            """;
}
