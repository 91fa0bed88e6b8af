package io.faultline.lazyfs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code java -cp ... io.faultline.lazyfs.LazyFsMain --backing DIR --mount DIR [--control DIR] [--real-fsync]}: mounts the filesystem in the foreground
 * until killed or unmounted. Needs libfuse2 and the right to mount (root with CAP_SYS_ADMIN and /dev/fuse, or
 * fusermount).
 */
public final class LazyFsMain {
    private LazyFsMain() {}

    /**
     * Mount options. Large writes (128 KiB, not libfuse2's 4 KiB default) keep the per-request cost down; zero
     * entry/attribute timeouts make a forget visible at once to a mount that goes on serving; nonempty because a
     * node's data directory is mounted over itself (its own files are the backing copy).
     */
    public static String[] mountOptions() {
        return new String[] {"-o", "big_writes,max_write=131072,max_read=131072,entry_timeout=0,attr_timeout=0,"
                + "negative_timeout=0,nonempty,fsname=lazyfs,subtype=lazyfs"};
    }

    public static void main(String[] args) throws Exception {
        Path backing = null;
        Path mount = null;
        Path control = null;
        boolean realFsync = false;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String next = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--backing" -> { backing = Path.of(require(a, next)); i++; }
                case "--mount" -> { mount = Path.of(require(a, next)); i++; }
                case "--control" -> { control = Path.of(require(a, next)); i++; }
                case "--real-fsync" -> realFsync = true;
                default -> rest.add(a);
            }
        }
        if (backing == null || mount == null || !rest.isEmpty()) {
            System.err.println("usage: lazyfs --backing DIR --mount DIR [--control DIR] [--real-fsync]" + (rest.isEmpty() ? "" : "; unknown " + rest));
            System.exit(2);
        }
        if (!Files.isDirectory(mount)) {
            System.err.println("lazyfs: mount point " + mount + " is not a directory");
            System.exit(2);
        }
        LazyFs fs = new LazyFs(backing, realFsync);
        if (control != null) new Control(fs, control).start();
        Runtime.getRuntime().addShutdownHook(new Thread(fs::close, "lazyfs-unmount"));
        System.err.println("lazyfs: mounting " + backing + " at " + mount);
        fs.mount(mount, true, false, mountOptions());
    }

    private static String require(String flag, String value) {
        if (value == null) {
            System.err.println("lazyfs: " + flag + " needs a value");
            System.exit(2);
        }
        return value;
    }
}
