package io.faultline.lazyfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** Puts the backing directory back to its durable image: file contents first, then directory operations undone. */
final class Reverter {
    private final LibC c;
    private final Path backing;
    private final String root;

    Reverter(LibC c, Path backing) {
        this.c = c;
        this.backing = backing;
        this.root = backing.toString();
    }

    private Path b(String path) {
        return Path.of(root + path);
    }

    private String s(String path) {
        return root + path;
    }

    void restore(String path, FileState st) throws IOException {
        int fd = c.open(s(path), LibC.O_RDWR, 0);
        if (fd < 0) throw new IOException("cannot open " + path + " to restore it: errno " + (-LibC.errno()));
        try {
            st.restore(new FileState.Restorer() {
                @Override
                public void write(long offset, byte[] bytes) {
                    long n = c.pwrite(fd, bytes, bytes.length, offset);
                    if (n != bytes.length) throw new IllegalStateException("restore write failed on " + path);
                }

                @Override
                public void truncate(long length) {
                    if (c.ftruncate(fd, length) != 0) throw new IllegalStateException("restore truncate failed on " + path);
                }
            });
        } finally {
            c.close(fd);
        }
    }

    void undo(Journal.Op op) throws IOException {
        if (op instanceof Journal.Create cr) {
            LazyFs.deleteRecursively(b(cr.path()));
        } else if (op instanceof Journal.Remove rm) {
            move(rm.grave(), rm.path());
        } else if (op instanceof Journal.Rename rn) {
            move(rn.to(), rn.from());
            if (rn.replacedGrave() != null) move(rn.replacedGrave(), rn.to());
        }
    }

    private void move(String from, String to) throws IOException {
        if (c.rename(s(from), s(to)) != 0) {
            throw new IOException("undo: cannot move " + from + " back to " + to + ": errno " + (-LibC.errno()));
        }
    }

    /** Backing inode → mount path (graves included) of every regular file. */
    Map<Long, String> inodePaths() throws IOException {
        Map<Long, String> out = new HashMap<>();
        try (Stream<Path> walk = Files.walk(backing)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) continue;
                long ino = (Long) Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS);
                out.put(ino, "/" + backing.relativize(p));
            }
        }
        return out;
    }

}
