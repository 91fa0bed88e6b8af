/**
 * The metadata quorum and the active controller (issue [1/8]).
 *
 * <p>Every node starts one {@link io.faultline.broker.controller.ControllerNode}: a Ratis voter when its id is in
 * {@code raftVoters}, otherwise a Ratis LISTENER that follows the committed log without voting. All nodes replay
 * the same committed record batches into the same {@link io.faultline.broker.metadata.MetadataImage} and tell
 * their {@link io.faultline.broker.controller.MetadataListener}s, in commit order, on one thread.
 *
 * <p>The Raft leader, once it has applied everything committed before its term (Ratis' "leader ready"), is the
 * active controller: {@code handle(header, request)} decides with the pure
 * {@link io.faultline.broker.controller.ControllerLogic} (decide, then records, then replay), writes the records
 * through Raft, and answers once they are committed and applied. Other nodes answer NOT_CONTROLLER; the caller
 * finds the active controller with {@code activeControllerId()} and retries there.
 *
 * <p>Raft addresses: by convention the Raft port is the controller listener port of
 * {@code controller.quorum.voters} plus {@link io.faultline.broker.controller.QuorumVoters#DEFAULT_RAFT_PORT_OFFSET}
 * ({@link io.faultline.broker.controller.ControllerNodeConfig#fromQuorumVoters}); tests may give explicit maps.
 * The Raft log and image snapshots live in the metadata directory; a restart loads the latest snapshot and
 * replays the log after it; a peer that missed purged entries installs the leader's snapshot. Ratis never fsyncs a
 * directory, so the controller does it where a power cut would otherwise undo what Raft counts on: before the log's
 * entries count as flushed ({@link io.faultline.broker.controller.RaftLogDirectorySync}) and before a vote leaves the
 * node ({@link io.faultline.broker.controller.DurableVoteRpc}).
 */
package io.faultline.broker.controller;
