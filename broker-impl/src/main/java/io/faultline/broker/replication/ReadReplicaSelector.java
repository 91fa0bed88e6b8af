package io.faultline.broker.replication;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Which replica a consumer should read from (KIP-392, Kafka's RackAwareReplicaSelector): the leader when it is in the
 * consumer's rack or the consumer names none; else, of the followers in that rack that hold the fetch offset, the one
 * with the longest log, the most recently caught up among equals. The caller passes only followers that may serve (in
 * the ISR, on a live broker); the leader then answers with that follower's id instead of records.
 */
public final class ReadReplicaSelector {
    private ReadReplicaSelector() {}

    /**
     * A follower that may serve reads, as the leader knows it from its fetches.
     *
     * @param logStartOffset -1 when the leader has not heard it yet
     */
    public record Candidate(int brokerId, String rack, long logEndOffset, long logStartOffset, long lastCaughtUpMs) {
    }

    private static final Comparator<Candidate> BEST = Comparator.comparingLong(Candidate::logEndOffset)
            .thenComparingLong(Candidate::lastCaughtUpMs);

    /** The follower to send the consumer to, or empty: the leader serves it itself. */
    public static OptionalInt select(String clientRack, String leaderRack, List<Candidate> followers, long fetchOffset) {
        if (clientRack == null || clientRack.isEmpty() || clientRack.equals(leaderRack)) return OptionalInt.empty();
        return followers.stream()
                .filter(c -> Objects.equals(clientRack, c.rack()))
                .filter(c -> c.logEndOffset() >= fetchOffset && c.logStartOffset() <= fetchOffset)
                .max(BEST)
                .map(c -> OptionalInt.of(c.brokerId()))
                .orElse(OptionalInt.empty());
    }
}
