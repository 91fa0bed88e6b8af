package io.faultline.results;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.faultline.checker.Verdict;

import java.util.List;
import java.util.Map;

/**
 * What the recovery check concluded about a run's cluster after the final heal (results.json's "liveness", the
 * report's Liveness section): did every broker come back and serve, did every partition get a leader and its full
 * replica set back in the ISR within the bound, could every key be written and read, and did any node flood its
 * log. Apart from the safety checks: a liveness anomaly makes the run invalid, but it is not a broken promise about
 * data. See docs/liveness.md.
 *
 * @param verdict   valid (recovered), invalid (a liveness anomaly) or unknown (the check could not observe)
 * @param reason    why the verdict is unknown, else null
 * @param bounds    the limits judged against
 * @param timings   how long recovery took, measured from the end of the final heal
 * @param anomalies each violation with the timeline of what the check saw
 * @param logGrowth per node: bytes its logs grew over the run and the rate
 * @param notes     what could not be judged without making the verdict unknown (e.g. no writes after the heal)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Liveness(Verdict verdict, String reason, Bounds bounds, Timings timings, List<Anomaly> anomalies,
                       Map<String, LogGrowth> logGrowth, List<String> notes) {

    public static final String UNRESPONSIVE_BROKER = "liveness/unresponsive-broker";
    public static final String FENCED_BROKER = "liveness/fenced-broker";
    public static final String NO_LEADER = "liveness/no-leader";
    public static final String UNRECOVERED_ISR = "liveness/unrecovered-isr";
    /**
     * The brokers, each describing a partition as led and fully in sync, did not describe it alike: another leader,
     * leader epoch, replica set or ISR. Metadata reaches every broker within a second or so of a change; one that
     * keeps a different view after the heal serves clients a leadership the controller no longer holds.
     */
    public static final String DIVERGED_METADATA = "liveness/diverged-metadata";
    public static final String UNWRITABLE_KEY = "liveness/unwritable-key";
    public static final String UNREADABLE_KEY = "liveness/unreadable-key";
    public static final String LOG_FLOOD = "liveness/log-flood";
    /** A consumer that joined a new consumer group after the final heal never got a record. */
    public static final String UNREADABLE_GROUP = "liveness/unreadable-group";
    /**
     * A workload partition's last stable offset stayed below its high watermark after the heal: a transaction nobody
     * decides (Kafka's "hanging transaction"), which read_committed consumers can never read past.
     */
    public static final String HANGING_TRANSACTION = "liveness/hanging-transaction";
    /**
     * After the heal, with the whole replica set back in the ISR and no write for a while, the replicas still differ:
     * in the high watermark each checkpointed when the cluster stopped (a follower that stops learning what is
     * committed serves stale follower reads and leads with a stale high watermark), or in where their logs end (an
     * in-sync follower short of the leader's log, or one that kept a tail the leader does not have).
     */
    public static final String UNCONVERGED_REPLICAS = "liveness/unconverged-replicas";
    /**
     * The cluster, started on a healthy network before any fault, did not come up within the readiness bound, or
     * refused (or never answered) the workload's set-up, such as creating its topics.
     */
    public static final String NEVER_READY = "liveness/never-ready";

    /**
     * An op of a workload beside the queue, made after the final heal and the recovery wait (a compacted or trimmed
     * topic's write or read, a scratch topic's description, an offsets register's read), was refused every time it
     * was tried: the healed cluster does not serve what that workload needs.
     */
    public static final String REFUSED_AFTER_HEAL = "liveness/refused-after-heal";

    /** Every anomaly name, in report order. */
    public static final List<String> NAMES = List.of(UNRESPONSIVE_BROKER, FENCED_BROKER, NO_LEADER, UNRECOVERED_ISR,
            DIVERGED_METADATA, HANGING_TRANSACTION, UNCONVERGED_REPLICAS, UNWRITABLE_KEY, UNREADABLE_KEY, UNREADABLE_GROUP,
            REFUSED_AFTER_HEAL, LOG_FLOOD, NEVER_READY);

    public Liveness {
        anomalies = anomalies == null ? List.of() : List.copyOf(anomalies);
        logGrowth = logGrowth == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(logGrowth));
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /** A check that could not observe: unknown, with why. */
    public static Liveness unknown(String reason, Bounds bounds) {
        return new Liveness(Verdict.UNKNOWN, reason, bounds, null, List.of(), Map.of(), List.of());
    }

    /**
     * A cluster that never came up: started on a healthy network with no fault injected, it did not serve within
     * the readiness bound. Nothing a correct broker may do explains that, so it is invalid, not an unjudged run
     * (a misconfigured broker looks the same; {@code why} carries the nodes' last lines, which say which).
     */
    public static Liveness neverReady(String why, Bounds bounds) {
        return new Liveness(Verdict.INVALID, null, bounds, null,
                List.of(new Anomaly(NEVER_READY, "cluster", why, List.of())), Map.of(), List.of());
    }

    /** @param recoverySeconds how long after the final heal every condition may take; logBytesPerSecond: per node */
    public record Bounds(double recoverySeconds, long logBytesPerSecond) {
    }

    /**
     * Seconds from the end of the final heal until a condition first held for every broker / partition (null: not
     * seen within the check), how long the heal itself took, how long the check observed and how many polls it made.
     */
    public record Timings(Double brokersServing, Double partitionsRecovered, Double allRecovered, double healSeconds,
                          double observedSeconds, int polls) {
    }

    /** One observed state of a subject: when (ISO and seconds after the heal), whether it was fine, what it was. */
    public record Sample(String at, double secondsAfterHeal, boolean ok, String state) {
    }

    /** A named violation for one subject (a broker, a partition, a key, a node's log), with what was seen. */
    public record Anomaly(String name, String subject, String explanation, List<Sample> timeline) {
        public Anomaly {
            timeline = timeline == null ? List.of() : List.copyOf(timeline);
        }
    }

    /** How much a node's log files grew over the observed span. */
    public record LogGrowth(long bytes, double seconds, double bytesPerSecond) {
    }

    /** Anomaly name → how many subjects it was found for. */
    public Map<String, Long> counts() {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (String n : NAMES) out.put(n, 0L);
        for (Anomaly a : anomalies) out.merge(a.name(), 1L, Long::sum);
        return out;
    }
}
