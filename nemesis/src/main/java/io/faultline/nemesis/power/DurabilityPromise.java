package io.faultline.nemesis.power;

/**
 * Whether a Kafka-protocol system's durability settings promised that acknowledged records survive the power
 * losses a run inflicted, and why, in a sentence for the report next to any loss found.
 *
 * <p>Kafka (and broker-impl, which follows it) acknowledges acks=all once every in-sync replica has the record in
 * its log, not on disk: by default the log is fsynced only by the OS's background writeback, and Kafka documents
 * that durability comes from replication. So: with log.flush.interval.messages=1 every append is fsynced before
 * the replica reports it, and no power loss may lose an acknowledged record. Otherwise the record lives in at
 * least min.insync.replicas page caches; as long as fewer nodes than that lose power at once one copy survives
 * and must be re-replicated, but when that many (e.g. all nodes at once) lose power, acknowledged records may be
 * lost within the settings.
 *
 * @param promised    true when a loss is a broken promise (a bug), false when the settings allowed it
 * @param explanation the sentence for the report
 */
public record DurabilityPromise(boolean promised, String explanation) {

    public static DurabilityPromise of(Long flushIntervalMessages, Long flushIntervalMs, int minInsyncReplicas,
                                       int maxNodesOffAtOnce) {
        String flushing = "log.flush.interval.messages=" + (flushIntervalMessages == null ? "default (never)" : flushIntervalMessages)
                + ", log.flush.interval.ms=" + (flushIntervalMs == null ? "default (never)" : flushIntervalMs);
        if (maxNodesOffAtOnce == 0) {
            return new DurabilityPromise(true, "No node lost power in this run; " + flushing + ".");
        }
        if (flushIntervalMessages != null && flushIntervalMessages == 1) {
            return new DurabilityPromise(true, flushing + ": every append is fsynced before a replica acknowledges it,"
                    + " so acknowledged records must survive power loss, even of " + maxNodesOffAtOnce
                    + " node(s) at once: any loss is a durability bug.");
        }
        if (maxNodesOffAtOnce < minInsyncReplicas) {
            return new DurabilityPromise(true, flushing + ": acknowledged records may sit unsynced in page caches, but"
                    + " each is on at least min.insync.replicas=" + minInsyncReplicas + " replicas and at most "
                    + maxNodesOffAtOnce + " node(s) lost power at once, so a copy always survived: any loss is a"
                    + " replication bug.");
        }
        return new DurabilityPromise(false, flushing + ": acknowledged records may sit unsynced in page caches, and "
                + maxNodesOffAtOnce + " node(s) lost power at once (min.insync.replicas=" + minInsyncReplicas
                + "), so every copy of a record can vanish together; Kafka documents that durability then relies"
                + " on replication, not fsync: a loss here is allowed by these settings (set"
                + " log.flush.interval.messages=1 to forbid it).");
    }
}
