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
 * histories' spread-out offsets count as (allowed) holes. And again: group-rewind's count and the three
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
            11 dense fd7f2eca6fa3a9e383ae2fa709311748dd71dce7605eba35293c38101054d6c9
            11 sparse 52de04845279965df8b66b38f2a9c169917aa756f8f11bc072818ad053a52ea7
            11 split 838349b34565158daadbda64297f3b2ce247c5639692e8f9d47ef0c755f805d3
            12 dense cb84fba8e3ad60588370ff90e7b8735c3bc8ede358817c98fdab258151f0642a
            12 sparse 8c83f78dcb6996186e97c9c180f87a2a810315d8219bbe8445eac574fa0cc365
            12 split 676f7f9a11e0c9b1995e3ff2d20dfcc4f6eeadcc9cfab83851404aaf11af40bf
            13 dense 7ac5e67647f3532ac2471f31cf9566306c40995c07db59bc0de57991389b3977
            13 sparse 1d5cf632b8363aa592295376d229a999fcbc1e3c4ab25bea36ddd28c448388a1
            13 split 2d7b1e1e6e2a283756c664905367e5351f78feb1a337e2999d3bad2a13e5e954
            """;
}
