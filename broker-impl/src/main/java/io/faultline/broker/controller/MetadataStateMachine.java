package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import io.faultline.broker.metadata.MetadataSerde;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.apache.ratis.io.MD5Hash;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of the metadata quorum: each committed log entry is one serialized record batch,
 * replayed into the {@link MetadataImage}; snapshots are the serialized image, so a restart loads the latest
 * snapshot and replays only the log after it. Runs on voters and listeners alike.
 *
 * <p>A batch whose replay breaks an invariant (possible only if a leader decided on a stale image) is skipped
 * as a whole, identically on every node, and its writer is told so.
 */
final class MetadataStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataStateMachine.class);
    static final String REJECTED = "rejected:";

    /** Callbacks into the node; all are called on Ratis threads and must not block. */
    interface Events {
        /** A batch (or a snapshot load) moved the image from {@code before} to {@code after}. */
        void applied(MetadataImage before, MetadataImage after);

        void leaderChanged(RaftPeerId leader);

        void leaderReady();
    }

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final Events events;
    private volatile MetadataImage image = MetadataImage.EMPTY;

    private final DurableFiles.Syncer syncer;
    /** Set in initialize; used on Ratis' log worker thread. */
    private volatile RaftLogDirectorySync logDirectorySync;

    MetadataStateMachine(Events events) {
        this(events, DurableFiles.FSYNC);
    }

    MetadataStateMachine(Events events, DurableFiles.Syncer syncer) {
        this.events = events;
        this.syncer = syncer;
    }

    MetadataImage image() {
        return image;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            logDirectorySync = RaftLogDirectorySync.forCurrentDir(
                    raftStorage.getStorageDir().getCurrentDir().toPath(), syncer);
            loadLatestSnapshot();
        });
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /** Before a snapshot from the leader is installed: Ratis requires the PAUSED state, then calls reinitialize. */
    @Override
    public synchronized void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /** After a snapshot install (or on request): load the latest snapshot and run again. */
    @Override
    public synchronized void reinitialize() throws IOException {
        loadLatestSnapshot();
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    private void loadLatestSnapshot() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        if (snapshot == null) return;
        File file = snapshot.getFile().getPath().toFile();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) MD5FileUtil.verifySavedMD5(file, md5);
        MetadataImage loaded = MetadataSerde.deserializeImage(Files.readAllBytes(file.toPath()));
        synchronized (this) {
            MetadataImage before = image;
            image = loaded;
            updateLastAppliedTermIndex(snapshot.getTermIndex());
            events.applied(before, loaded);
        }
        LOG.info("loaded metadata snapshot {} (image offset {})", snapshot.getTermIndex(), loaded.offset());
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        TermIndex ti = TermIndex.valueOf(entry);
        byte[] bytes = entry.getStateMachineLogEntry().getLogData().toByteArray();
        String outcome = "ok";
        synchronized (this) {
            MetadataImage before = image;
            MetadataImage after;
            try {
                List<MetadataRecord> records = MetadataSerde.deserializeBatch(bytes);
                after = before.apply(ti.getIndex(), records);
            } catch (RuntimeException e) {
                // Deterministic on every node: same image, same bytes, same refusal.
                LOG.warn("skipping metadata batch at {}: {}", ti, e.toString());
                outcome = REJECTED + e.getMessage();
                after = before.withOffset(ti.getIndex());
            }
            image = after;
            updateLastAppliedTermIndex(ti);
            events.applied(before, after);
        }
        return CompletableFuture.completedFuture(Message.valueOf(outcome));
    }

    /**
     * Ratis' log worker calls this right before it forces the open segment and counts its entries as flushed:
     * the directory operations of the Raft log become durable here ({@link RaftLogDirectorySync}). A failure
     * fails the log (Ratis then stops this server): an entry must not be acknowledged on a log that may vanish.
     */
    @Override
    public CompletableFuture<Void> flush(long logIndex) {
        RaftLogDirectorySync sync = logDirectorySync;
        if (sync == null) return CompletableFuture.completedFuture(null);
        try {
            sync.beforeLogForce();
            return CompletableFuture.completedFuture(null);
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot make the Raft log's directory durable before flushing up to index {}", logIndex, e);
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public long takeSnapshot() throws IOException {
        MetadataImage snap;
        TermIndex applied;
        synchronized (this) {
            snap = image;
            applied = getLastAppliedTermIndex();
        }
        if (applied == null || applied.getIndex() < 0) return -1;
        File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
        byte[] bytes = MetadataSerde.serializeImage(snap);
        // Durable before Ratis learns of it: it purges the log entries the snapshot covers right after.
        DurableFiles.write(file.toPath(), bytes, syncer);
        MD5Hash md5;
        try {
            md5 = MD5Hash.newInstance(java.security.MessageDigest.getInstance("MD5").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has MD5", e);
        }
        DurableFiles.write(MD5FileUtil.getDigestFileForFile(file).toPath(), md5File(md5, file), syncer);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), applied));
        return applied.getIndex();
    }

    /** The digest file as Ratis' MD5FileUtil reads it: hex digest, " *", file name, newline. */
    private static byte[] md5File(MD5Hash md5, File file) {
        return (md5 + " *" + file.getName() + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        events.leaderChanged(newLeaderId);
    }

    @Override
    public void notifyLeaderReady() {
        events.leaderReady();
    }
}
