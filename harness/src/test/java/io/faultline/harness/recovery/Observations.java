package io.faultline.harness.recovery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Recorded-style observations of a 3-broker cluster with one partition t-0 (replicas 1, 2, 3), for the tests. */
final class Observations {
    static final Instant HEAL = Instant.parse("2026-12-01T12:00:00Z");
    static final List<Integer> REPLICAS = List.of(1, 2, 3);

    private Observations() {}

    static Instant at(double secondsAfterHeal) {
        return HEAL.plusMillis((long) (secondsAfterHeal * 1000));
    }

    static NodeView.PartitionView partition(int leader, List<Integer> isr) {
        return new NodeView.PartitionView("t", 0, leader, REPLICAS, isr, null);
    }

    static NodeView answering(int id, Set<Integer> brokers, NodeView.PartitionView... partitions) {
        return new NodeView("n" + id, id, null, brokers, List.of(partitions));
    }

    static NodeView silent(int id) {
        return NodeView.silent("n" + id, id, "no answer within 2000 ms");
    }

    /** Every broker answers, lists all three, and describes t-0 led by 1 with a full ISR. */
    static Observation healthy(double seconds) {
        var p = partition(1, REPLICAS);
        return new Observation(at(seconds), List.of(answering(1, Set.of(1, 2, 3), p), answering(2, Set.of(1, 2, 3), p),
                answering(3, Set.of(1, 2, 3), p)));
    }

    /** n3 frozen: it answers nothing, n1 and n2 fenced it and shrank the ISR. */
    static Observation n3Paused(double seconds) {
        var p = partition(1, List.of(1, 2));
        return new Observation(at(seconds), List.of(answering(1, Set.of(1, 2), p), answering(2, Set.of(1, 2), p), silent(3)));
    }

    /** A clock the test moves by hand. */
    static final class ManualClock extends Clock {
        private Instant now;

        ManualClock(Instant start) {
            this.now = start;
        }

        synchronized void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public synchronized Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    static List<Observation> list(Observation... o) {
        return new ArrayList<>(List.of(o));
    }
}
