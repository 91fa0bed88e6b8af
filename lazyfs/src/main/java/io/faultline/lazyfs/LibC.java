package io.faultline.lazyfs;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;

/**
 * The few libc calls the pass-through needs. Data moves between the kernel's FUSE buffer and the backing file
 * with pread/pwrite on native pointers, so a write never crosses the Java heap. Every call returns -1 and sets
 * errno on failure; {@link #errno()} turns that into FUSE's negative error code.
 */
public interface LibC {
    int O_ACCMODE = 3;
    int O_WRONLY = 1;
    int O_RDWR = 2;
    int O_CREAT = 0100;
    int O_EXCL = 0200;
    int O_TRUNC = 01000;
    int O_APPEND = 02000;
    int O_DIRECT = 040000;

    int open(String path, int flags, int mode);

    int close(int fd);

    long pread(int fd, Pointer buf, long count, long offset);

    long pwrite(int fd, Pointer buf, long count, long offset);

    long pread(int fd, @Out byte[] buf, long count, long offset);

    long pwrite(int fd, @In byte[] buf, long count, long offset);

    int fsync(int fd);

    int fdatasync(int fd);

    int ftruncate(int fd, long length);

    int lstat(String path, Pointer stat);

    int fstat(int fd, Pointer stat);

    int statvfs(String path, Pointer buf);

    int mkdir(String path, int mode);

    int rmdir(String path);

    int unlink(String path);

    int rename(String from, String to);

    int chmod(String path, int mode);

    int lchown(String path, int uid, int gid);

    int mkfifo(String path, int mode);

    int fallocate(int fd, int mode, long offset, long length);

    int mount(String source, String target, String type, long flags, Pointer data);

    LibC INSTANCE = LibraryLoader.create(LibC.class).load("c");

    /** The last call's errno as a negative FUSE result. */
    static int errno() {
        int e = Runtime.getRuntime(INSTANCE).getLastError();
        return e == 0 ? -5 /* EIO */ : -e;
    }
}
