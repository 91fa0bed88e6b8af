package io.faultline.broker.group;

import io.faultline.broker.common.Scheduler;
import io.faultline.broker.common.Time;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic-protocol group coordinator (JoinGroup / SyncGroup / Heartbeat / LeaveGroup), following Kafka's
 * GroupCoordinator: a rebalance waits for every known member to rejoin (bounded by the rebalance timeout, after
 * which stragglers are removed), new members first get MEMBER_ID_REQUIRED, heartbeats during a rebalance get
 * REBALANCE_IN_PROGRESS, and members whose session expires are removed. Answers go through callbacks because
 * joins and syncs wait for other members. A periodic tick on the injected {@link Time}'s scheduler drives deadlines.
 */
public final class GroupCoordinator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GroupCoordinator.class);

    public record MemberInfo(String memberId, String groupInstanceId, byte[] metadata) {
    }

    public record JoinResult(Errors error, int generationId, String protocolType, String protocolName,
                             String leaderId, String memberId, List<MemberInfo> members) {
        static JoinResult error(Errors e, String memberId) {
            return new JoinResult(e, -1, null, null, "", memberId, List.of());
        }
    }

    public record SyncResult(Errors error, String protocolType, String protocolName, byte[] assignment) {
        static SyncResult error(Errors e) {
            return new SyncResult(e, null, null, new byte[0]);
        }
    }

    /** A group as DescribeGroups / ListGroups report it. */
    public record GroupSummary(String groupId, String state, String protocolType, String protocolName,
                               List<MemberSummary> members) {
    }

    public record MemberSummary(String memberId, String groupInstanceId, String clientId, String clientHost,
                                byte[] metadata, byte[] assignment) {
    }

    private final Time time;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int initialRebalanceDelayMs;
    private final Map<String, ClassicGroup> groups = new ConcurrentHashMap<>();
    /** How often deadlines (session expiry, rebalance and join timeouts) are checked. */
    static final long TICK_MS = 50;
    private final Scheduler.Cancellable ticker;
    /** Where Stable/Empty group states are persisted (the offsets topic); called under the group's lock. */
    private volatile Consumer<GroupRecord> persister = r -> { };

    public GroupCoordinator(Time time, int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs) {
        this.time = time;
        this.minSessionTimeoutMs = minSessionTimeoutMs;
        this.maxSessionTimeoutMs = maxSessionTimeoutMs;
        this.initialRebalanceDelayMs = initialRebalanceDelayMs;
        this.ticker = time.scheduler().scheduleWithFixedDelay("group-coordinator-tick", this::tick, TICK_MS, TICK_MS);
    }

    public void setPersister(Consumer<GroupRecord> persister) {
        this.persister = persister;
    }

    /**
     * Restores a persisted group at startup: Empty with its generation, or Stable with its members, whose
     * sessions start now (so members that died meanwhile expire normally).
     */
    public void restore(GroupRecord r) {
        ClassicGroup g = groups.computeIfAbsent(r.groupId(), ClassicGroup::new);
        synchronized (g) {
            if (!g.is(GroupState.EMPTY) || !g.members.isEmpty()) return; // already live
            g.generationId = r.generationId();
            g.protocolType = r.protocolType();
            if (r.members().isEmpty()) return;
            long now = time.nanoseconds();
            for (GroupRecord.Member m : r.members()) {
                GroupMember gm = new GroupMember(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost());
                gm.sessionTimeoutMs = m.sessionTimeoutMs();
                gm.rebalanceTimeoutMs = m.rebalanceTimeoutMs();
                gm.protocols = new java.util.LinkedHashMap<>(Map.of(r.protocolName(), m.subscription()));
                gm.assignment = m.assignment();
                gm.lastHeartbeatNanos = now;
                g.members.put(gm.memberId, gm);
            }
            g.protocolName = r.protocolName();
            g.leaderId = r.leaderId();
            // The only legal way into Stable, replayed: the rebalance that produced this state completed earlier.
            g.transitionTo(GroupState.PREPARING_REBALANCE);
            g.transitionTo(GroupState.COMPLETING_REBALANCE);
            g.transitionTo(GroupState.STABLE);
            log.info("Restored group {} generation {} with {} members", g.groupId, g.generationId, g.members.size());
        }
    }

    private void persist(ClassicGroup g) {
        List<GroupRecord.Member> members = new ArrayList<>();
        for (GroupMember m : g.members.values()) {
            members.add(new GroupRecord.Member(m.memberId, m.groupInstanceId, m.clientId, m.clientHost,
                    m.rebalanceTimeoutMs, m.sessionTimeoutMs, m.protocols.getOrDefault(g.protocolName, new byte[0]),
                    m.assignment));
        }
        try {
            persister.accept(new GroupRecord(g.groupId, g.protocolType == null ? "" : g.protocolType, g.generationId,
                    g.protocolName == null ? "" : g.protocolName, g.leaderId == null ? "" : g.leaderId, members));
        } catch (RuntimeException e) {
            // Membership still works; only a restart would cost the members a rebalance.
            log.warn("Cannot persist group {}: {}", g.groupId, e.toString());
        }
    }

    /** Makes the group known (e.g. because offsets were committed for it) without members. */
    public void ensureGroup(String groupId) {
        groups.computeIfAbsent(groupId, ClassicGroup::new);
    }

    public void join(String groupId, String memberId, String groupInstanceId, String clientId, String clientHost,
                     int sessionTimeoutMs, int rebalanceTimeoutMs, String protocolType, Map<String, byte[]> protocols,
                     boolean requireKnownMemberId, Consumer<JoinResult> callback) {
        if (sessionTimeoutMs < minSessionTimeoutMs || sessionTimeoutMs > maxSessionTimeoutMs) {
            callback.accept(JoinResult.error(Errors.INVALID_SESSION_TIMEOUT, memberId));
            return;
        }
        ClassicGroup g = groups.computeIfAbsent(groupId, ClassicGroup::new);
        synchronized (g) {
            if (g.is(GroupState.DEAD)) {
                callback.accept(JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, memberId));
                return;
            }
            if (!g.supports(protocolType, protocols.keySet())) {
                callback.accept(JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
                return;
            }
            long now = time.nanoseconds();
            if (memberId.isEmpty()) {
                String newId = (clientId == null ? "" : clientId) + "-" + UUID.randomUUID();
                if (requireKnownMemberId) {
                    // KIP-394: the member must come back with this id, so a lost response cannot leak members.
                    g.pendingMembers.put(newId, now + ms(sessionTimeoutMs));
                    callback.accept(JoinResult.error(Errors.MEMBER_ID_REQUIRED, newId));
                    return;
                }
                addMemberAndRebalance(g, newId, groupInstanceId, clientId, clientHost, sessionTimeoutMs,
                        rebalanceTimeoutMs, protocolType, protocols, callback);
                return;
            }
            if (g.pendingMembers.remove(memberId) != null) {
                addMemberAndRebalance(g, memberId, groupInstanceId, clientId, clientHost, sessionTimeoutMs,
                        rebalanceTimeoutMs, protocolType, protocols, callback);
                return;
            }
            GroupMember m = g.members.get(memberId);
            if (m == null) {
                callback.accept(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
                return;
            }
            m.lastHeartbeatNanos = now;
            switch (g.state()) {
                case PREPARING_REBALANCE -> updateMemberAndRebalance(g, m, sessionTimeoutMs, rebalanceTimeoutMs,
                        protocols, callback);
                case COMPLETING_REBALANCE, STABLE -> {
                    boolean unchanged = m.sameProtocols(protocols);
                    if (unchanged && (g.is(GroupState.COMPLETING_REBALANCE) || !memberId.equals(g.leaderId))) {
                        callback.accept(joinResult(g, m)); // nothing changed: same generation
                    } else {
                        updateMemberAndRebalance(g, m, sessionTimeoutMs, rebalanceTimeoutMs, protocols, callback);
                    }
                }
                default -> callback.accept(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
            }
        }
    }

    private void addMemberAndRebalance(ClassicGroup g, String memberId, String groupInstanceId, String clientId,
                                       String clientHost, int sessionTimeoutMs, int rebalanceTimeoutMs,
                                       String protocolType, Map<String, byte[]> protocols,
                                       Consumer<JoinResult> callback) {
        GroupMember m = new GroupMember(memberId, groupInstanceId, clientId, clientHost);
        if (g.members.isEmpty()) g.protocolType = protocolType;
        g.members.put(memberId, m);
        updateMemberAndRebalance(g, m, sessionTimeoutMs, rebalanceTimeoutMs, protocols, callback);
    }

    private void updateMemberAndRebalance(ClassicGroup g, GroupMember m, int sessionTimeoutMs, int rebalanceTimeoutMs,
                                          Map<String, byte[]> protocols, Consumer<JoinResult> callback) {
        m.sessionTimeoutMs = sessionTimeoutMs;
        m.rebalanceTimeoutMs = rebalanceTimeoutMs;
        m.protocols = protocols;
        m.lastHeartbeatNanos = time.nanoseconds();
        if (m.awaitingJoin != null && m.awaitingJoin != callback) {
            m.awaitingJoin.accept(JoinResult.error(Errors.REBALANCE_IN_PROGRESS, m.memberId)); // superseded
        }
        m.awaitingJoin = callback;
        if (!g.is(GroupState.PREPARING_REBALANCE)) prepareRebalance(g, "member " + m.memberId + " joined");
        tryCompleteJoin(g);
    }

    private void prepareRebalance(ClassicGroup g, String reason) {
        if (g.is(GroupState.COMPLETING_REBALANCE)) {
            for (GroupMember m : g.members.values()) {
                if (m.awaitingSync != null) {
                    m.awaitingSync.accept(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
                    m.awaitingSync = null;
                }
            }
        }
        boolean wasEmpty = g.is(GroupState.EMPTY);
        g.transitionTo(GroupState.PREPARING_REBALANCE);
        int delayMs = wasEmpty ? Math.min(initialRebalanceDelayMs, g.maxRebalanceTimeoutMs()) : g.maxRebalanceTimeoutMs();
        g.initialDelay = wasEmpty && delayMs > 0;
        g.phaseDeadlineNanos = time.nanoseconds() + ms(delayMs);
        log.info("Group {} preparing rebalance (generation {}): {}", g.groupId, g.generationId, reason);
    }

    private void tryCompleteJoin(ClassicGroup g) {
        if (g.is(GroupState.PREPARING_REBALANCE) && !g.initialDelay && g.allMembersJoined()) completeJoin(g);
    }

    /** Ends PreparingRebalance: new generation, leader and protocol; every waiting member gets its answer. */
    private void completeJoin(ClassicGroup g) {
        g.members.values().removeIf(m -> m.awaitingJoin == null); // did not rejoin in time
        // Pending members (told MEMBER_ID_REQUIRED) stay pending until their own deadline, as in Kafka: when they
        // join they start the next rebalance instead of being told their id is unknown.
        g.generationId++;
        if (g.members.isEmpty()) {
            g.transitionTo(GroupState.EMPTY);
            g.protocolName = null;
            g.leaderId = null;
            log.info("Group {} is empty at generation {}", g.groupId, g.generationId);
            persist(g);
            return;
        }
        g.protocolName = g.selectProtocol();
        if (g.leaderId == null || !g.members.containsKey(g.leaderId)) g.leaderId = g.members.keySet().iterator().next();
        g.transitionTo(GroupState.COMPLETING_REBALANCE);
        long now = time.nanoseconds();
        g.phaseDeadlineNanos = now + ms(g.maxRebalanceTimeoutMs());
        log.info("Group {} generation {} with {} members, leader {}", g.groupId, g.generationId, g.members.size(),
                g.leaderId);
        for (GroupMember m : g.members.values()) {
            Consumer<JoinResult> cb = m.awaitingJoin;
            m.awaitingJoin = null;
            m.lastHeartbeatNanos = now;
            cb.accept(joinResult(g, m));
        }
    }

    private static JoinResult joinResult(ClassicGroup g, GroupMember m) {
        List<MemberInfo> members = new ArrayList<>();
        if (m.memberId.equals(g.leaderId)) {
            for (GroupMember o : g.members.values()) {
                members.add(new MemberInfo(o.memberId, o.groupInstanceId, o.protocols.get(g.protocolName)));
            }
        }
        return new JoinResult(Errors.NONE, g.generationId, g.protocolType, g.protocolName, g.leaderId, m.memberId,
                members);
    }

    public void sync(String groupId, String memberId, int generationId, String protocolType, String protocolName,
                     Map<String, byte[]> assignments, Consumer<SyncResult> callback) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) {
            callback.accept(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
            return;
        }
        synchronized (g) {
            GroupMember m = g.members.get(memberId);
            if (m == null) {
                callback.accept(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
            } else if (generationId != g.generationId) {
                callback.accept(SyncResult.error(Errors.ILLEGAL_GENERATION));
            } else if ((protocolType != null && !protocolType.equals(g.protocolType))
                    || (protocolName != null && !protocolName.equals(g.protocolName))) {
                callback.accept(SyncResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL));
            } else if (g.is(GroupState.PREPARING_REBALANCE)) {
                callback.accept(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
            } else if (g.is(GroupState.STABLE)) {
                m.lastHeartbeatNanos = time.nanoseconds();
                callback.accept(new SyncResult(Errors.NONE, g.protocolType, g.protocolName, m.assignment));
            } else if (g.is(GroupState.COMPLETING_REBALANCE)) {
                m.lastHeartbeatNanos = time.nanoseconds();
                m.awaitingSync = callback;
                if (memberId.equals(g.leaderId)) {
                    for (GroupMember o : g.members.values()) {
                        o.assignment = assignments.getOrDefault(o.memberId, new byte[0]);
                    }
                    g.transitionTo(GroupState.STABLE);
                    persist(g);
                    for (GroupMember o : g.members.values()) {
                        if (o.awaitingSync != null) {
                            o.awaitingSync.accept(new SyncResult(Errors.NONE, g.protocolType, g.protocolName,
                                    o.assignment));
                            o.awaitingSync = null;
                        }
                    }
                }
            } else {
                callback.accept(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
            }
        }
    }

    public Errors heartbeat(String groupId, String memberId, int generationId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) return Errors.UNKNOWN_MEMBER_ID;
        synchronized (g) {
            GroupMember m = g.members.get(memberId);
            if (m == null) return Errors.UNKNOWN_MEMBER_ID;
            if (generationId != g.generationId) return Errors.ILLEGAL_GENERATION;
            m.lastHeartbeatNanos = time.nanoseconds();
            return switch (g.state()) {
                case PREPARING_REBALANCE -> Errors.REBALANCE_IN_PROGRESS;
                case COMPLETING_REBALANCE, STABLE -> Errors.NONE;
                default -> Errors.UNKNOWN_MEMBER_ID;
            };
        }
    }

    /** Removes one member; the rest rebalance. */
    public Errors leave(String groupId, String memberId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) return Errors.UNKNOWN_MEMBER_ID;
        synchronized (g) {
            if (g.pendingMembers.remove(memberId) != null) {
                tryCompleteJoin(g);
                return Errors.NONE;
            }
            if (!g.members.containsKey(memberId)) return Errors.UNKNOWN_MEMBER_ID;
            removeMember(g, memberId, "member " + memberId + " left");
            return Errors.NONE;
        }
    }

    private void removeMember(ClassicGroup g, String memberId, String reason) {
        GroupMember m = g.members.remove(memberId);
        if (m != null && m.awaitingJoin != null) m.awaitingJoin.accept(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        if (m != null && m.awaitingSync != null) m.awaitingSync.accept(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        switch (g.state()) {
            case STABLE, COMPLETING_REBALANCE -> prepareRebalance(g, reason);
            default -> { }
        }
        if (g.is(GroupState.PREPARING_REBALANCE) && g.members.isEmpty() && g.pendingMembers.isEmpty()) {
            completeJoin(g); // nobody left to wait for
        } else {
            tryCompleteJoin(g);
        }
    }

    /** Checks a commit's member and generation (generation -1 with no members: a simple/admin commit). */
    public Errors validateOffsetCommit(String groupId, String memberId, int generationId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) return generationId < 0 ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
        synchronized (g) {
            if (g.is(GroupState.DEAD)) return Errors.COORDINATOR_NOT_AVAILABLE;
            if (generationId < 0 && g.is(GroupState.EMPTY)) return Errors.NONE;
            if (g.is(GroupState.COMPLETING_REBALANCE)) return Errors.REBALANCE_IN_PROGRESS;
            if (!g.members.containsKey(memberId)) return Errors.UNKNOWN_MEMBER_ID;
            if (generationId != g.generationId) return Errors.ILLEGAL_GENERATION;
            return Errors.NONE;
        }
    }

    /** Expires sessions, pending members and rebalance phases whose deadline passed. */
    void tick() {
        long now = time.nanoseconds();
        for (ClassicGroup g : groups.values()) {
            try {
                synchronized (g) {
                    g.pendingMembers.values().removeIf(deadline -> deadline - now < 0);
                    for (GroupMember m : new ArrayList<>(g.members.values())) {
                        boolean waiting = m.awaitingJoin != null || m.awaitingSync != null;
                        if (!waiting && now - m.lastHeartbeatNanos > ms(m.sessionTimeoutMs)) {
                            removeMember(g, m.memberId, "session of " + m.memberId + " expired");
                        }
                    }
                    if (g.phaseDeadlineNanos - now >= 0) {
                        tryCompleteJoin(g);
                        continue;
                    }
                    if (g.is(GroupState.PREPARING_REBALANCE)) {
                        g.initialDelay = false;
                        if (g.allMembersJoined() || g.phaseDeadlineNanos - now < 0) completeJoin(g);
                    } else if (g.is(GroupState.COMPLETING_REBALANCE)) {
                        // The leader never sent its assignment: start over; members that do not rejoin are dropped.
                        prepareRebalance(g, "sync timed out");
                    }
                }
            } catch (RuntimeException e) {
                log.error("Group {} tick failed", g.groupId, e);
            }
        }
    }

    public Optional<GroupSummary> describe(String groupId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) return Optional.empty();
        synchronized (g) {
            List<MemberSummary> ms = new ArrayList<>();
            boolean stable = g.is(GroupState.STABLE);
            for (GroupMember m : g.members.values()) {
                ms.add(new MemberSummary(m.memberId, m.groupInstanceId, m.clientId, m.clientHost,
                        stable ? m.protocols.get(g.protocolName) : new byte[0], stable ? m.assignment : new byte[0]));
            }
            return Optional.of(new GroupSummary(g.groupId, g.state().kafkaName(),
                    g.protocolType == null ? "" : g.protocolType,
                    stable && g.protocolName != null ? g.protocolName : "", ms));
        }
    }

    /**
     * DeleteGroups: only a group without members (Empty) can be deleted. {@code deleteStored} removes what is
     * persisted (offsets, membership) first; if it throws, the group stays as it was.
     */
    public Errors deleteGroup(String groupId, Runnable deleteStored) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) return Errors.GROUP_ID_NOT_FOUND;
        synchronized (g) {
            if (g.is(GroupState.DEAD)) return Errors.GROUP_ID_NOT_FOUND;
            if (!g.is(GroupState.EMPTY) || !g.members.isEmpty()) return Errors.NON_EMPTY_GROUP;
            deleteStored.run();
            g.transitionTo(GroupState.DEAD);
            groups.remove(groupId, g);
            return Errors.NONE;
        }
    }

    /**
     * For OffsetDelete: the topics the group's members consume, as Kafka decides whether an offset may go. An
     * Empty group consumes nothing; a "consumer" group with members consumes its members' subscriptions (null
     * when one cannot be read: then every topic counts as consumed); any other group with members is refused
     * whole (NON_EMPTY_GROUP), as are unknown groups (GROUP_ID_NOT_FOUND).
     */
    public Subscriptions subscriptions(String groupId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) return new Subscriptions(Errors.GROUP_ID_NOT_FOUND, Set.of());
        synchronized (g) {
            if (g.is(GroupState.DEAD)) return new Subscriptions(Errors.GROUP_ID_NOT_FOUND, Set.of());
            if (g.members.isEmpty()) return new Subscriptions(Errors.NONE, Set.of());
            if (!"consumer".equals(g.protocolType)) return new Subscriptions(Errors.NON_EMPTY_GROUP, Set.of());
            Set<String> topics = new HashSet<>();
            for (GroupMember m : g.members.values()) {
                Collection<byte[]> subs = g.protocolName != null && m.protocols.containsKey(g.protocolName)
                        ? List.of(m.protocols.get(g.protocolName)) : m.protocols.values();
                for (byte[] sub : subs) {
                    try {
                        topics.addAll(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(sub)).topics());
                    } catch (RuntimeException e) {
                        return new Subscriptions(Errors.NONE, null);
                    }
                }
            }
            return new Subscriptions(Errors.NONE, topics);
        }
    }

    /** See {@link #subscriptions}; {@code topics} null means "cannot tell: all". */
    public record Subscriptions(Errors error, Set<String> topics) {
        public boolean consumes(String topic) {
            return topics == null || topics.contains(topic);
        }
    }

    public Collection<GroupSummary> list() {
        List<GroupSummary> out = new ArrayList<>();
        for (String id : groups.keySet()) describe(id).ifPresent(out::add);
        return out;
    }

    private static long ms(long millis) {
        return millis * 1_000_000L;
    }

    @Override
    public void close() {
        ticker.cancel();
    }
}
