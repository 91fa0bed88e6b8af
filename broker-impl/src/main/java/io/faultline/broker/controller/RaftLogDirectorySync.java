package io.faultline.broker.controller;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes the Raft log's directory operations durable before Ratis counts an entry as flushed. Ratis 3.2.0 forces
 * its segment files but never a directory, so after a power cut (every byte no fsync covered is gone) the
 * creation of the open segment {@code log_inprogress_N}, its rename to {@code log_N-M} at a roll or truncation,
 * the deletion of purged segments and the atomic rename of {@code raft-meta} (term and vote) could all be
 * undone, and a quorum that lost power at once came back without entries it had committed.
 *
 * <p>Ratis calls the state machine's {@code flush} on its log worker right before it forces the open segment
 * and only then counts the entries as flushed (acknowledging them to the leader, or committing them), so this
 * runs there: fsync the {@code current/} directory (and once, its ancestors up to the metadata directory's
 * parent, whose entries hold {@code current/} itself). A truncation shortens a closed segment without forcing it,
 * so every closed segment not yet forced at its present name and length is forced too. A vote (raft-meta renamed)
 * must be durable before any entry of its term exists: {@link DurableVoteRpc} fsyncs for it.
 */
final class RaftLogDirectorySync {
    private final Path current;
    private final List<Path> ancestors;
    private final DurableFiles.Syncer syncer;
    /** Log worker thread only. Closed segments forced at their present name: name → length. */
    private final Map<String, Long> forcedSegments = new HashMap<>();
    private boolean ancestorsSynced;

    /**
     * @param current     Ratis' {@code current/} directory (log segments, raft-meta)
     * @param ancestors   the directories above it whose entries lead to it, nearest first
     */
    RaftLogDirectorySync(Path current, List<Path> ancestors, DurableFiles.Syncer syncer) {
        this.current = current;
        this.ancestors = List.copyOf(ancestors);
        this.syncer = syncer;
    }

    /** Ratis' {@code current/} and its ancestors up to the parent of the metadata directory. */
    static RaftLogDirectorySync forCurrentDir(Path current, DurableFiles.Syncer syncer) {
        Path group = current.toAbsolutePath().getParent();
        Path metadataDir = group.getParent();
        List<Path> up = metadataDir.getParent() == null ? List.of(group, metadataDir)
                : List.of(group, metadataDir, metadataDir.getParent());
        return new RaftLogDirectorySync(current.toAbsolutePath(), up, syncer);
    }

    /** Before Ratis forces the open segment and counts its entries as flushed. */
    void beforeLogForce() throws IOException {
        forceChangedClosedSegments();
        syncer.forceDirectory(current);
        if (!ancestorsSynced) {
            for (Path dir : ancestors) syncer.forceDirectory(dir);
            ancestorsSynced = true;
        }
    }

    private void forceChangedClosedSegments() throws IOException {
        Map<String, Long> present = new HashMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(current, "log_[0-9]*-[0-9]*")) {
            for (Path f : files) present.put(f.getFileName().toString(), Files.size(f));
        }
        forcedSegments.keySet().retainAll(present.keySet());
        for (Map.Entry<String, Long> e : present.entrySet()) {
            if (e.getValue().equals(forcedSegments.get(e.getKey()))) continue;
            Path f = current.resolve(e.getKey());
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                syncer.force(ch, f);
            }
            forcedSegments.put(e.getKey(), e.getValue());
        }
    }
}
