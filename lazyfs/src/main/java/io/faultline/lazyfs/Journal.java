package io.faultline.lazyfs;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.ListIterator;
import java.util.Set;

/**
 * The directory operations not yet made durable by a directory fsync, oldest first. Paths are the mount's
 * ("/kafka/t-0/0.log"). A removed or replaced entry is not deleted but moved to a grave (a hidden name in the
 * backing directory) until its removal becomes durable, so forgetting can put it back.
 *
 * <p>An fsync of directory D makes durable every pending op that changed an entry of D, and with it every earlier
 * pending op it depends on (one that touched the same path, an ancestor or a descendant): the durable state
 * is therefore always reachable by undoing the remaining ops newest first, each on exactly the state it was
 * applied to. A cross-directory rename becomes durable with an fsync of either directory (it is one journal
 * transaction on ext4-like filesystems).
 */
final class Journal {
    /** One directory operation, as applied to the backing directory. */
    sealed interface Op {
        /** The mount paths this op changed. */
        List<String> paths();

        /** The directories whose entries this op changed. */
        default Set<String> dirs() {
            Set<String> out = new HashSet<>();
            for (String p : paths()) out.add(parent(p));
            return out;
        }

        /** The graves this op holds (deleted once it is durable). */
        List<String> graves();
    }

    /** A file or directory created at path. Undo: delete it. */
    record Create(String path, boolean directory) implements Op {
        public List<String> paths() {
            return List.of(path);
        }

        public List<String> graves() {
            return List.of();
        }
    }

    /** path (file or empty directory) removed; its entry now lives at grave. Undo: move it back. */
    record Remove(String path, String grave) implements Op {
        public List<String> paths() {
            return List.of(path);
        }

        public List<String> graves() {
            return List.of(grave);
        }
    }

    /** from renamed to to; what to held before, if anything, now lives at replacedGrave. Undo: both back. */
    record Rename(String from, String to, String replacedGrave) implements Op {
        public List<String> paths() {
            return List.of(from, to);
        }

        public List<String> graves() {
            return replacedGrave == null ? List.of() : List.of(replacedGrave);
        }
    }

    private final List<Op> pending = new ArrayList<>();

    synchronized void record(Op op) {
        pending.add(op);
    }

    synchronized int size() {
        return pending.size();
    }

    synchronized List<Op> pending() {
        return List.copyOf(pending);
    }

    /**
     * An fsync of directory dir: removes and returns the ops that became durable (their graves can go).
     */
    synchronized List<Op> syncDirectory(String dir) {
        List<Op> durable = new ArrayList<>();
        List<String> durablePaths = new ArrayList<>();
        ListIterator<Op> it = pending.listIterator(pending.size());
        while (it.hasPrevious()) {
            Op op = it.previous();
            if (op.dirs().contains(dir) || touchesAny(op, durablePaths)) {
                durable.add(op);
                durablePaths.addAll(op.paths());
                it.remove();
            }
        }
        return durable;
    }

    /** Empties the journal, returning the pending ops newest first: the order in which to undo them. */
    synchronized List<Op> drainForUndo() {
        List<Op> out = new ArrayList<>(pending);
        java.util.Collections.reverse(out);
        pending.clear();
        return out;
    }

    private static boolean touchesAny(Op op, List<String> paths) {
        for (String a : op.paths()) {
            for (String b : paths) if (related(a, b)) return true;
        }
        return false;
    }

    /** The same path, or one is inside the other. */
    static boolean related(String a, String b) {
        return a.equals(b) || isInside(a, b) || isInside(b, a);
    }

    private static boolean isInside(String child, String dir) {
        return dir.equals("/") || child.startsWith(dir + "/");
    }

    /** "/a/b" → "/a"; "/a" → "/". */
    static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }
}
