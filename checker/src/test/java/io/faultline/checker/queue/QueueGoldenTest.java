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
 * histories' spread-out offsets count as (allowed) holes.
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
            11 dense e862e65de8a1a7cba43830ff95fc575628224f20fc5e21d9109a7d0a1f46958d
            11 sparse e67986710ebd9d9da9c1ab50eaed62721ebe44cb6a53b4f5175e85f5495872e5
            11 split 1a574e46c5e8ab39dd3c8168e7cf7e4891a48b2835903a7167c24997d4956504
            12 dense 0ab5c9c0d293eec293c917f3851d18c540a43d0163229c1bbf9f6248c8285c85
            12 sparse 03a22e0659bcecdb9354d6cb0c33c0e2d0d2e43a34e86666890792f7be194e0f
            12 split 1ee9d01256b5216c8ef90e97216c1e7c21e3976b408ad8fdd00a9417bb70e6f9
            13 dense 8a7cea6f7ea8959e1bdb2241b7740bf25d9c46e183ba911d8484142ca0a46dd3
            13 sparse 0be7a6398d299d89fc4f5bf204c27574a2f2e5968c632e768100a813c2c7fa16
            13 split 72257bad69df5a7b8926321f21af54e80c5112f4cfc46c14bae0a1c7c104a619
            """;
}
