package io.faultline.lazyfs;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.regex.Pattern;

/**
 * The filesystem's command channel, a named pipe like Jepsen lazyfs's: a line "COMMAND ID" written to
 * {@code DIR/control} is answered by the file {@code DIR/ID.reply} ("ok ..." or "error ..."), written
 * atomically, so a shell can send a command and wait for its answer:
 * <pre>echo "crash 42" > DIR/control; until [ -e DIR/42.reply ]; do sleep 0.05; done; cat DIR/42.reply</pre>
 * Commands: {@code forget} (lazyfs's clear-cache: revert to the fsynced image and go on serving), {@code crash}
 * (revert, then fail every operation with EIO: power is off; stop the users of the mount before, kill them after), {@code status}.
 */
public final class Control implements Runnable {
    public static final String PIPE = "control";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final LazyFs fs;
    private final Path dir;

    public Control(LazyFs fs, Path dir) throws IOException {
        this.fs = fs;
        this.dir = dir;
        Files.createDirectories(dir);
        Path pipe = dir.resolve(PIPE);
        Files.deleteIfExists(pipe);
        if (LibC.INSTANCE.mkfifo(pipe.toString(), 0600) != 0) {
            throw new IOException("mkfifo " + pipe + " failed: errno " + (-LibC.errno()));
        }
    }

    /** Starts serving on a daemon thread. */
    public Thread start() {
        Thread t = new Thread(this, "lazyfs-control");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void run() {
        // Opened read-write so the pipe never reports end-of-file between writers.
        try (RandomAccessFile pipe = new RandomAccessFile(dir.resolve(PIPE).toFile(), "rw")) {
            String line;
            while ((line = pipe.readLine()) != null) {
                handle(line.trim());
            }
        } catch (IOException e) {
            System.err.println("lazyfs: control channel closed: " + e);
        }
    }

    /** Runs one command line; returns the reply it wrote (or null when the line had no usable id). */
    String handle(String line) {
        String[] parts = line.split("\\s+");
        if (parts.length != 2 || !ID.matcher(parts[1]).matches()) {
            System.err.println("lazyfs: ignored control line '" + line + "' (want: COMMAND ID)");
            return null;
        }
        String reply;
        try {
            reply = switch (parts[0]) {
                case "forget" -> "ok " + fs.forget(false);
                case "crash" -> "ok " + fs.forget(true);
                case "status" -> "ok " + fs.status();
                default -> "error unknown command " + parts[0] + " (forget, crash, status)";
            };
        } catch (IOException | RuntimeException e) {
            reply = "error " + e;
        }
        try {
            Path tmp = dir.resolve(parts[1] + ".tmp");
            Files.writeString(tmp, reply + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, dir.resolve(parts[1] + ".reply"), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("lazyfs: cannot write reply " + parts[1] + ": " + e);
        }
        System.err.println("lazyfs: " + parts[0] + " -> " + reply);
        return reply;
    }
}
