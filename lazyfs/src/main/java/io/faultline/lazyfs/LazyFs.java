package io.faultline.lazyfs;

import jnr.ffi.Pointer;
import jnr.ffi.Struct;
import ru.serce.jnrfuse.ErrorCodes;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

/**
 * A pass-through FUSE filesystem over a backing directory that can forget, like a machine losing power, every
 * write not yet fsynced (Jepsen lazyfs's "clear cache"). Data is written through at once; {@link FileState}
 * keeps per inode what the last fsync made durable, and {@link Journal} the directory operations no directory
 * fsync has covered yet. {@link #forget} puts the backing directory back to that durable image; with
 * {@code fence} it then stops serving (every later operation blocks), which is power loss at that instant: the
 * caller kills the processes using the mount next.
 *
 * <p>Every operation holds the gate's read lock and forget its write lock, so forgetting is atomic with respect
 * to operations in flight. Directory operations are serialised (nsLock) so the journal's order is theirs.
 */
public final class LazyFs extends FuseStubFS {
    /** Hidden name (at the backing root) of the entries removed but not yet durably. */
    static final String GRAVEYARD = "/.lazyfs-graveyard";

    private final LibC c = LibC.INSTANCE;
    private final Path backing;
    private final String root;
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    private final Object nsLock = new Object();
    private final Map<Long, FileState> files = new ConcurrentHashMap<>();
    private final Map<Long, Long> inodeOfFd = new ConcurrentHashMap<>();
    private final Journal journal = new Journal();
    private final Reverter reverter;
    private final AtomicLong graveSeq = new AtomicLong();
    private final ThreadLocal<FileStat> scratchStat = ThreadLocal.withInitial(
            () -> new FileStat(jnr.ffi.Runtime.getSystemRuntime()));
    private volatile boolean fenced;
    private final boolean realFsync;
    /** The mount's device number (its FUSE connection), known once mounted in the background; 0 before. */
    private volatile long connection;

    /** With fsyncs modelled only: see {@link #LazyFs(Path, boolean)}. */
    public LazyFs(Path backing) throws IOException {
        this(backing, false);
    }

    /**
     * @param realFsync also fsync the backing file or directory on every fsync. Off by default: what an fsync made
     *                  durable is this filesystem's model, and the host disk's own durability is not under test;
     *                  passing fsyncs on makes a broker fsyncing every message as slow as the host's disk (about
     *                  6 ms per fsync on the project's shared VMs), which is no part of what a run should measure.
     */
    public LazyFs(Path backing, boolean realFsync) throws IOException {
        // FuseStubFS's constructor loads libfuse2: check (and provision) FUSE in the argument list, which runs first.
        this(fuseChecked(backing), realFsync, true);
    }

    private static Path fuseChecked(Path backing) {
        HostFuse.ensureAvailable();
        return backing;
    }

    private LazyFs(Path backing, boolean realFsync, boolean fuseChecked) throws IOException {
        this.realFsync = realFsync;
        this.backing = backing.toAbsolutePath().normalize();
        this.root = this.backing.toString();
        this.reverter = new Reverter(c, this.backing);
        if (!Files.isDirectory(this.backing)) throw new IOException("backing directory " + backing + " does not exist");
        // Entries left in the graveyard by a process that died were removed as far as a page cache knows: drop them.
        deleteRecursively(b(GRAVEYARD));
        Files.createDirectories(b(GRAVEYARD));
    }

    /** The result of a forget: how much of the un-synced state was undone. */
    public record Forgotten(int filesReverted, int directoryOpsUndone, boolean fenced) {}

    /**
     * Reverts every file to its last fsynced content and length and undoes the directory operations no
     * directory fsync covered. With fence, every later operation fails with EIO (power is off).
     */
    public Forgotten forget(boolean fence) throws IOException {
        gate.writeLock().lock();
        try {
            if (fenced) throw new IllegalStateException("already crashed: the mount serves nothing until remounted");
            int reverted = 0;
            Map<Long, String> paths = reverter.inodePaths();
            for (var e : files.entrySet()) {
                String path = paths.get(e.getKey());
                if (path == null) continue; // deleted for good (a durable unlink): nothing to revert
                reverter.restore(path, e.getValue());
                reverted++;
            }
            files.clear();
            List<Journal.Op> undo = journal.drainForUndo();
            for (Journal.Op op : undo) reverter.undo(op);
            deleteRecursively(b(GRAVEYARD));
            Files.createDirectories(b(GRAVEYARD));
            if (fence) fenced = true;
            return new Forgotten(reverted, undo.size(), fence);
        } finally {
            gate.writeLock().unlock();
        }
    }

    /** Un-synced state: files with a durable image to keep, and pending directory operations. */
    public String status() {
        return "files-tracked=" + files.size() + " dir-ops-pending=" + journal.size() + " fenced=" + fenced;
    }

    /**
     * Unmounts. After a crash the connection is aborted first: a program that crashed in this same JVM (a test)
     * still holds files open, and closing them at exit would wait on answers from a loop that is going away.
     */
    public void close() {
        if (fenced && connection > 0) abortConnection();
        umount();
    }

    /**
     * Fails every pending and later request of this mount's FUSE connection (fusectl's abort). Also the way out of
     * a hung mount: a program blocked in the kernel on this mount gets ENOTCONN instead of waiting for ever.
     */
    void abortConnection() {
        if (connection <= 0) return;
        try {
            long minor = (connection & 0xff) | ((connection >> 12) & 0xfff00);
            Path conns = Path.of("/sys/fs/fuse/connections");
            if (!Files.exists(conns.resolve(Long.toString(minor)))) c.mount("fusectl", conns.toString(), "fusectl", 0, null);
            Files.writeString(conns.resolve(minor + "/abort"), "1");
        } catch (IOException | RuntimeException e) {
            System.err.println("lazyfs: could not abort the connection of " + mountPoint + ": " + e);
        }
    }

    /**
     * Mounts at mountPoint with its FUSE loop on a daemon thread, so the loop never keeps a JVM alive (files a
     * crashed program left open keep a lazily unmounted connection open), and waits until the kernel lists it.
     */
    public void mountInBackground(Path mountPoint, String[] options, long timeoutMillis) throws IOException {
        Path at = mountPoint.toAbsolutePath().normalize();
        Thread loop = new Thread(() -> mount(at, true, false, options), "lazyfs-loop-" + at.getFileName());
        loop.setDaemon(true);
        loop.start();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (Files.readAllLines(Path.of("/proc/mounts")).stream().noneMatch(l -> l.contains(" " + at + " fuse"))) {
            if (System.nanoTime() > deadline || !loop.isAlive()) {
                throw new IOException("lazyfs did not mount at " + at + " (needs /dev/fuse, libfuse2 and the right to mount)");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while mounting", e);
            }
        }
        connection = (Long) Files.getAttribute(at, "unix:dev");
    }

    // ---- the gate ------------------------------------------------------------------------------------------

    /**
     * Every operation starts here: false once crashed, and the operation fails with EIO. (Blocking instead would
     * deadlock: the kernel waits uninterruptibly for answers already sent to us, so the killed program could
     * never finish dying, and its PID-1 exit is what would kill this daemon.)
     */
    private boolean enter() {
        gate.readLock().lock();
        if (!fenced) return true;
        gate.readLock().unlock();
        return false;
    }

    private void exit() {
        gate.readLock().unlock();
    }

    private Path b(String path) {
        return Path.of(root + path);
    }

    private String s(String path) {
        return root + path;
    }

    private static boolean hidden(String path) {
        return path.equals(GRAVEYARD) || path.startsWith(GRAVEYARD + "/");
    }

    // ---- metadata ------------------------------------------------------------------------------------------

    @Override
    public int getattr(String path, FileStat stat) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            return c.lstat(s(path), Struct.getMemory(stat)) == 0 ? 0 : LibC.errno();
        } finally {
            exit();
        }
    }

    @Override
    public int fgetattr(String path, FileStat stat, FuseFileInfo fi) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            return c.fstat(fd(fi), Struct.getMemory(stat)) == 0 ? 0 : LibC.errno();
        } finally {
            exit();
        }
    }

    @Override
    public int readdir(String path, Pointer buf, FuseFillDir filler, long offset, FuseFileInfo fi) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(b(path))) {
            filler.apply(buf, ".", null, 0);
            filler.apply(buf, "..", null, 0);
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (path.equals("/") && ("/" + name).equals(GRAVEYARD)) continue;
                filler.apply(buf, name, null, 0);
            }
            return 0;
        } catch (java.nio.file.NoSuchFileException e) {
            return -ErrorCodes.ENOENT();
        } catch (IOException e) {
            return -ErrorCodes.EIO();
        } finally {
            exit();
        }
    }

    @Override
    public int statfs(String path, Statvfs stbuf) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            return c.statvfs(root, Struct.getMemory(stbuf)) == 0 ? 0 : LibC.errno();
        } finally {
            exit();
        }
    }

    @Override
    public int chmod(String path, long mode) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            return c.chmod(s(path), (int) mode) == 0 ? 0 : LibC.errno();
        } finally {
            exit();
        }
    }

    @Override
    public int chown(String path, long uid, long gid) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            return c.lchown(s(path), (int) uid, (int) gid) == 0 ? 0 : LibC.errno();
        } finally {
            exit();
        }
    }

    @Override
    public int utimens(String path, Timespec[] timespec) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            long nsec = timespec[1].tv_nsec.longValue();
            if (nsec == 1073741822L) return 0; // UTIME_OMIT
            FileTime t = nsec == 1073741823L ? FileTime.fromMillis(System.currentTimeMillis())
                    : FileTime.fromMillis(timespec[1].tv_sec.get() * 1000 + nsec / 1_000_000);
            Files.setLastModifiedTime(b(path), t);
            return 0;
        } catch (IOException e) {
            return -ErrorCodes.EIO();
        } finally {
            exit();
        }
    }

    @Override
    public int access(String path, int mask) {
        return hidden(path) ? -ErrorCodes.ENOENT() : 0;
    }

    // ---- directory operations (journaled) ------------------------------------------------------------------

    @Override
    public int mkdir(String path, long mode) {
        if (hidden(path)) return -ErrorCodes.EACCES();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            synchronized (nsLock) {
                if (c.mkdir(s(path), (int) mode) != 0) return LibC.errno();
                journal.record(new Journal.Create(path, true));
                return 0;
            }
        } finally {
            exit();
        }
    }

    @Override
    public int create(String path, long mode, FuseFileInfo fi) {
        if (hidden(path)) return -ErrorCodes.EACCES();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            synchronized (nsLock) {
                boolean existed = c.lstat(s(path), Struct.getMemory(scratchStat.get())) == 0;
                int flags = backingFlags(fi.flags.get()) | LibC.O_CREAT | (fi.flags.get() & LibC.O_EXCL);
                int fd = c.open(s(path), flags, (int) mode);
                if (fd < 0) return LibC.errno();
                long ino = inode(fd);
                inodeOfFd.put((long) fd, ino);
                if (!existed) {
                    files.put(ino, new FileState(0));
                    journal.record(new Journal.Create(path, false));
                }
                fi.fh.set(fd);
                return 0;
            }
        } finally {
            exit();
        }
    }

    @Override
    public int unlink(String path) {
        return remove(path, false);
    }

    @Override
    public int rmdir(String path) {
        return remove(path, true);
    }

    private int remove(String path, boolean directory) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            synchronized (nsLock) {
                Path p = b(path);
                if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) return -ErrorCodes.ENOENT();
                boolean isDir = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
                if (directory && !isDir) return -ErrorCodes.ENOTDIR();
                if (!directory && isDir) return -ErrorCodes.EISDIR();
                if (directory) {
                    try (Stream<Path> s = Files.list(p)) {
                        if (s.findAny().isPresent()) return -ErrorCodes.ENOTEMPTY();
                    }
                }
                String grave = newGrave();
                if (c.rename(s(path), s(grave)) != 0) return LibC.errno();
                journal.record(new Journal.Remove(path, grave));
                return 0;
            }
        } catch (IOException e) {
            return -ErrorCodes.EIO();
        } finally {
            exit();
        }
    }

    @Override
    public int rename(String from, String to) {
        if (hidden(from) || hidden(to)) return -ErrorCodes.EACCES();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            synchronized (nsLock) {
                if (!Files.exists(b(from), LinkOption.NOFOLLOW_LINKS)) return -ErrorCodes.ENOENT();
                if (from.equals(to)) return 0;
                String grave = null;
                if (Files.exists(b(to), LinkOption.NOFOLLOW_LINKS)) {
                    boolean fromDir = Files.isDirectory(b(from), LinkOption.NOFOLLOW_LINKS);
                    boolean toDir = Files.isDirectory(b(to), LinkOption.NOFOLLOW_LINKS);
                    if (fromDir != toDir) return toDir ? -ErrorCodes.EISDIR() : -ErrorCodes.ENOTDIR();
                    if (toDir) {
                        try (Stream<Path> s = Files.list(b(to))) {
                            if (s.findAny().isPresent()) return -ErrorCodes.ENOTEMPTY();
                        }
                    }
                    grave = newGrave();
                    if (c.rename(s(to), s(grave)) != 0) return LibC.errno();
                }
                if (c.rename(s(from), s(to)) != 0) {
                    int err = LibC.errno();
                    if (grave != null) c.rename(s(grave), s(to));
                    return err;
                }
                journal.record(new Journal.Rename(from, to, grave));
                return 0;
            }
        } catch (IOException e) {
            return -ErrorCodes.EIO();
        } finally {
            exit();
        }
    }

    @Override
    public int fsyncdir(String path, FuseFileInfo fi) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            synchronized (nsLock) {
                int fd = realFsync ? c.open(s(path), 0, 0) : -1;
                if (fd >= 0) {
                    c.fsync(fd);
                    c.close(fd);
                }
                for (Journal.Op op : journal.syncDirectory(path)) {
                    for (String grave : op.graves()) forgetFile(grave);
                }
                return 0;
            }
        } finally {
            exit();
        }
    }

    /** A durable removal: the grave's content is gone for good, and so is its durable image. */
    private void forgetFile(String grave) {
        Path p = b(grave);
        try {
            if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                files.remove((Long) Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS));
            }
            deleteRecursively(p);
        } catch (IOException e) {
            // a leftover grave is removed at the next forget or start
        }
    }

    private String newGrave() {
        return GRAVEYARD + "/" + graveSeq.incrementAndGet();
    }

    // ---- file data -----------------------------------------------------------------------------------------

    @Override
    public int open(String path, FuseFileInfo fi) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            int flags = fi.flags.get();
            int fd = c.open(s(path), backingFlags(flags), 0);
            if (fd < 0) return LibC.errno();
            long ino = inode(fd);
            inodeOfFd.put((long) fd, ino);
            fi.fh.set(fd);
            if ((flags & LibC.O_TRUNC) != 0) {
                int r = truncateFd(fd, 0);
                if (r != 0) return r;
            }
            return 0;
        } finally {
            exit();
        }
    }

    /** Read-write whenever writing (saving old bytes needs reads); never append or direct (offsets are the kernel's). */
    private static int backingFlags(int flags) {
        int access = flags & LibC.O_ACCMODE;
        int rest = flags & ~(LibC.O_ACCMODE | LibC.O_CREAT | LibC.O_EXCL | LibC.O_TRUNC | LibC.O_APPEND | LibC.O_DIRECT);
        return rest | (access == 0 ? 0 : LibC.O_RDWR);
    }

    @Override
    public int read(String path, Pointer buf, long size, long offset, FuseFileInfo fi) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            long n = c.pread(fd(fi), buf, size, offset);
            return n < 0 ? LibC.errno() : (int) n;
        } finally {
            exit();
        }
    }

    @Override
    public int write(String path, Pointer buf, long size, long offset, FuseFileInfo fi) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            int fd = fd(fi);
            FileState st = state(fd);
            synchronized (st.lock()) {
                st.beforeChange(offset, size, reader(fd));
                long n = c.pwrite(fd, buf, size, offset);
                return n < 0 ? LibC.errno() : (int) n;
            }
        } finally {
            exit();
        }
    }

    @Override
    public int truncate(String path, long size) {
        if (hidden(path)) return -ErrorCodes.ENOENT();
        if (!enter()) return -ErrorCodes.EIO();
        try {
            int fd = c.open(s(path), LibC.O_RDWR, 0);
            if (fd < 0) return LibC.errno();
            try {
                return truncateFd(fd, size);
            } finally {
                c.close(fd);
            }
        } finally {
            exit();
        }
    }

    @Override
    public int ftruncate(String path, long size, FuseFileInfo fi) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            return truncateFd(fd(fi), size);
        } finally {
            exit();
        }
    }

    private int truncateFd(int fd, long size) {
        FileState st = state(fd);
        synchronized (st.lock()) {
            st.beforeTruncate(size, reader(fd));
            return c.ftruncate(fd, size) == 0 ? 0 : LibC.errno();
        }
    }

    @Override
    public int fallocate(String path, int mode, long offset, long length, FuseFileInfo fi) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            int fd = fd(fi);
            FileState st = state(fd);
            synchronized (st.lock()) {
                if (mode != 0) st.beforeChange(offset, length, reader(fd)); // punching or zeroing changes bytes
                return c.fallocate(fd, mode, offset, length) == 0 ? 0 : LibC.errno();
            }
        } finally {
            exit();
        }
    }

    @Override
    public int fsync(String path, int isdatasync, FuseFileInfo fi) {
        if (!enter()) return -ErrorCodes.EIO();
        try {
            int fd = fd(fi);
            if (realFsync && (isdatasync != 0 ? c.fdatasync(fd) : c.fsync(fd)) != 0) return LibC.errno();
            FileState st = state(fd);
            synchronized (st.lock()) {
                st.synced(size(fd));
            }
            return 0;
        } finally {
            exit();
        }
    }

    @Override
    public int flush(String path, FuseFileInfo fi) {
        return 0;
    }

    @Override
    public int release(String path, FuseFileInfo fi) {
        int fd = fd(fi);
        inodeOfFd.remove((long) fd);
        c.close(fd);
        return 0;
    }

    private static int fd(FuseFileInfo fi) {
        return (int) fi.fh.get();
    }

    /** The durable image of the file open as fd; first seen now, so durable as it is (or as it was at create). */
    private FileState state(int fd) {
        Long ino = inodeOfFd.get((long) fd);
        if (ino == null) ino = inode(fd);
        FileState st = files.get(ino);
        if (st != null) return st;
        long size = size(fd);
        return files.computeIfAbsent(ino, k -> new FileState(size));
    }

    private long inode(int fd) {
        FileStat st = scratchStat.get();
        if (c.fstat(fd, Struct.getMemory(st)) != 0) throw new IllegalStateException("fstat failed: " + LibC.errno());
        return st.st_ino.longValue();
    }

    private long size(int fd) {
        FileStat st = scratchStat.get();
        if (c.fstat(fd, Struct.getMemory(st)) != 0) throw new IllegalStateException("fstat failed: " + LibC.errno());
        return st.st_size.longValue();
    }

    private FileState.Reader reader(int fd) {
        return (offset, length) -> {
            byte[] out = new byte[length];
            int done = 0;
            while (done < length) {
                byte[] chunk = done == 0 ? out : new byte[length - done];
                long n = c.pread(fd, chunk, length - done, offset + done);
                if (n <= 0) break; // a hole past EOF reads as nothing: the durable bytes there were zeros
                if (chunk != out) System.arraycopy(chunk, 0, out, done, (int) n);
                done += (int) n;
            }
            return out; // unread tail stays zero, which is what a sparse durable file held
        };
    }

    static void deleteRecursively(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) return;
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(q);
        }
    }
}
