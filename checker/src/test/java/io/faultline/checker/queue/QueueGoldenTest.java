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
 * ordering breaks this, recompute the digests and say so in the commit.
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
            11 dense 172a4570ba42ebd7457ea2800387a12909e02ea3e0ff337a3c6d3469a55ed359
            11 sparse ab747236ffd614481406461fae1b3dee06828cb081993ec81b3c6f218d33456a
            11 split e64ba327d20506982281936686bc212de4cd20470cda65727dcd26168279ad1f
            12 dense 33146972ae1b0cc50f8c7d1d5799593954cd768c3d69b790b688af9f617aea8b
            12 sparse 89a8ef7f052b3e880aedc3e7bc5919cf9cf9b2dead40ec17de3d8e42a110983e
            12 split cc2d797036cde3ab71eb1549d59ea80ff4169045f997b9c4de402bde04a352bd
            13 dense 821f72aa06c3c0bd30320d0c2a8930f0527a3283989f2a6973d8331512102c71
            13 sparse 1eabfc4b0db933541fe54324a467050a0887f8eb92f6368e15af921ac01f21d1
            13 split 322d6d8d22b1e084a1d3116aaec8849ac914b1dc3e2505a5fd67bf2ed4df22ac
            """;
}
