package io.faultline.workloads.queue;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import java.time.Duration;
import java.util.Properties;

/**
 * Group members' timing, and a member that goes away as a crashed process does: without a LeaveGroup, so the
 * coordinator must notice by itself, when the member's session expires, and hand its partitions to the others.
 * Every workload consumer in a group gets a short session ({@link #SESSION_MS}, the brokers' default minimum) and a
 * short rebalance timeout ({@link #MAX_POLL_INTERVAL_MS}): with the client's defaults (45 s, 5 min) one worker busy in
 * a send held every rebalance of the run's group for minutes, and a departed member could not expire within the
 * final drain.
 */
final class GroupDeparture {
    private GroupDeparture() {}

    /** The session of a member that may depart (group.min.session.timeout.ms's default on both systems). */
    static final int SESSION_MS = 6000;
    static final int HEARTBEAT_MS = 1000;
    /** kafka-clients 3.x's switch for "no LeaveGroup on close" (4.x has CloseOptions instead and ignores it). */
    private static final String LEAVE_ON_CLOSE_3X = "internal.leave.group.on.close";

    /** A member that does not poll for this long leaves the group, and a rebalance waits no longer for it. */
    static final int MAX_POLL_INTERVAL_MS = 10_000;

    /** A group member's timing (extras given by the user win). */
    static void memberTimeouts(Properties p, java.util.Map<String, String> extras) {
        if (!extras.containsKey(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG)) p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_MS);
        if (!extras.containsKey(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG)) p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_MS);
        if (!extras.containsKey(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG)) p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, MAX_POLL_INTERVAL_MS);
    }

    /**
     * The rebalance timeout of the final drain's group, longer than the liveness check's bound for a takeover (20 s)
     * and than the drain: a rebalance that waits for a departed member then ends within the bound only when the
     * coordinator expires the member's session (6 s), not because the rebalance ran out of time.
     */
    static final int DEPARTING_MAX_POLL_INTERVAL_MS = 45_000;

    /** Settings of a consumer that may depart without leaving (see {@link #closeWithoutLeaving}), extras winning. */
    static void mayDepart(Properties p, java.util.Map<String, String> extras) {
        memberTimeouts(p, extras);
        if (!extras.containsKey(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG)) {
            p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, DEPARTING_MAX_POLL_INTERVAL_MS);
        }
        p.put(LEAVE_ON_CLOSE_3X, "false");
    }

    /** Closes the consumer without leaving its group (its member stays until its session expires). */
    static void closeWithoutLeaving(KafkaConsumer<String, String> consumer) {
        try {
            consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                    .withTimeout(Duration.ZERO));
        } catch (NoClassDefFoundError | NoSuchMethodError legacyClients) {
            // kafka-clients 3.x (the legacy line): the consumer was made with internal.leave.group.on.close=false
            consumer.close(Duration.ZERO);
        }
    }
}
