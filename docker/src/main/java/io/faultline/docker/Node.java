package io.faultline.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One node of a {@link Cluster}: a container whose filesystem and address outlive restarts, so the node
 * program can be stopped, killed, paused and started again like a process on a machine.
 * Thread-safe: every operation is a call to the engine.
 */
public final class Node {
    private static final Logger LOG = LoggerFactory.getLogger(Node.class);

    private final DockerClient client;
    private final String name;
    private final String ip;
    private final String containerId;
    private final List<Consumer<Node>> startListeners = new CopyOnWriteArrayList<>();
    private ConsoleLogStream consoleStream;

    Node(DockerClient client, String name, String ip, String containerId) {
        this.client = client;
        this.name = name;
        this.ip = ip;
        this.containerId = containerId;
    }

    /** The node's name, also its host name and its alias on the cluster network (n1, n2, ...). */
    public String name() {
        return name;
    }

    /** The node's fixed address on the cluster network; it survives restarts. */
    public String ip() {
        return ip;
    }

    public String containerId() {
        return containerId;
    }

    /** Runs after every (re)start of this node, e.g. to re-apply iptables rules that a restart drops. */
    public void addStartListener(Consumer<Node> listener) {
        startListeners.add(listener);
    }

    public void removeStartListener(Consumer<Node> listener) {
        startListeners.remove(listener);
    }

    /** Starts the node program; a no-op when it already runs. */
    public void start() {
        try {
            client.startContainerCmd(containerId).exec();
        } catch (NotModifiedException alreadyRunning) {
            return;
        }
        for (Consumer<Node> l : startListeners) {
            try {
                l.accept(this);
            } catch (RuntimeException e) {
                LOG.warn("{}: start listener failed: {}", name, e.getMessage());
            }
        }
    }

    /** Graceful stop: SIGTERM to the node program, then SIGKILL after {@code grace}. Never hangs longer. */
    public void stop(Duration grace) {
        if (isPaused()) resume();
        try {
            client.stopContainerCmd(containerId).withTimeout((int) Math.max(1, grace.toSeconds())).exec();
        } catch (NotModifiedException alreadyStopped) {
            // stopped already
        }
    }

    /** SIGKILL: the program dies at once, without flushing anything. */
    public void kill() {
        if (isPaused()) resume();
        signal("KILL");
    }

    /** Sends a signal to the node program (PID 1). Ignored when the node is not running. */
    public void signal(String signal) {
        if (!isRunning()) return;
        try {
            client.killContainerCmd(containerId).withSignal(signal).exec();
        } catch (com.github.dockerjava.api.exception.ConflictException notRunning) {
            // raced with an exit
        }
        if ("KILL".equals(signal)) awaitStopped(Duration.ofSeconds(20));
    }

    /** Freezes every process of the node (cgroup freezer): connections are accepted but never answered. */
    public void pause() {
        if (isRunning() && !isPaused()) client.pauseContainerCmd(containerId).exec();
    }

    public void resume() {
        if (isPaused()) client.unpauseContainerCmd(containerId).exec();
    }

    /** Graceful stop then start; files written before survive. */
    public void restart(Duration grace) {
        stop(grace);
        start();
    }

    public boolean isRunning() {
        Boolean running = client.inspectContainerCmd(containerId).exec().getState().getRunning();
        return Boolean.TRUE.equals(running);
    }

    public boolean isPaused() {
        Boolean paused = client.inspectContainerCmd(containerId).exec().getState().getPaused();
        return Boolean.TRUE.equals(paused);
    }

    /** Exit code of the last run of the node program, or null while it runs. */
    public Long exitCode() {
        var state = client.inspectContainerCmd(containerId).exec().getState();
        return Boolean.TRUE.equals(state.getRunning()) ? null : state.getExitCodeLong();
    }

    public void awaitStopped(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (isRunning()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException(name + " still runs after " + timeout);
            sleep(50);
        }
    }

    /** Runs a command inside the running node (as root, real clock), bounded by 60 s. */
    public ExecResult exec(String... command) {
        return exec(Duration.ofSeconds(60), command);
    }

    public ExecResult exec(Duration timeout, String... command) {
        var created = client.execCreateCmd(containerId).withCmd(command)
                .withAttachStdout(true).withAttachStderr(true).exec();
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        try (var callback = client.execStartCmd(created.getId()).exec(new ResultCallback.Adapter<Frame>() {
            @Override
            public void onNext(Frame frame) {
                (frame.getStreamType() == StreamType.STDERR ? err : out).writeBytes(frame.getPayload());
            }
        })) {
            if (!callback.awaitCompletion(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + ": `" + String.join(" ", command) + "` timed out after " + timeout);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        Long code = client.inspectExecCmd(created.getId()).exec().getExitCodeLong();
        return new ExecResult(code == null ? -1 : code.intValue(),
                out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs a shell command line inside the node. */
    public ExecResult sh(String commandLine) {
        return exec("sh", "-c", commandLine);
    }

    /** Reads a file from the node's filesystem; works while the node is stopped too. */
    public byte[] readFile(String path) {
        try (InputStream tar = client.copyArchiveFromContainerCmd(containerId, path).exec();
             var in = new TarArchiveInputStream(tar)) {
            TarArchiveEntry entry = in.getNextEntry();
            if (entry == null || !entry.isFile()) throw new IllegalArgumentException(name + ": " + path + " is not a file");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String readString(String path) {
        return new String(readFile(path), StandardCharsets.UTF_8);
    }

    /** Writes (replaces) a file in the node; works while the node is stopped too. Parent must exist. */
    public void writeFile(String path, byte[] content) {
        int slash = path.lastIndexOf('/');
        String dir = slash <= 0 ? "/" : path.substring(0, slash);
        var buf = new ByteArrayOutputStream();
        try (var tar = new TarArchiveOutputStream(buf)) {
            var entry = new TarArchiveEntry(path.substring(slash + 1));
            entry.setSize(content.length);
            entry.setMode(0644);
            tar.putArchiveEntry(entry);
            tar.write(content);
            tar.closeArchiveEntry();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        client.copyArchiveToContainerCmd(containerId).withRemotePath(dir)
                .withTarInputStream(new ByteArrayInputStream(buf.toByteArray())).exec();
    }

    public void writeString(String path, String content) {
        writeFile(path, content.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Copies a file or directory of the node into {@code hostDir} (created); missing paths are skipped. Read straight
     * from a local engine's layer where that gives the same files ({@link LocalLayer}), else through the engine.
     */
    public void copyOut(String path, Path hostDir) {
        try {
            Files.createDirectories(hostDir);
            var local = LocalLayer.of(client, containerId).flatMap(layer -> layer.whollyWritten(path));
            if (local.isPresent()) {
                Path name = Path.of(path).getFileName();
                LocalLayer.copyTree(local.get(), name == null ? hostDir : hostDir.resolve(name.toString()));
                return;
            }
            try (InputStream tar = client.copyArchiveFromContainerCmd(containerId, path).exec();
                 var in = new TarArchiveInputStream(tar)) {
                TarArchiveEntry entry;
                while ((entry = in.getNextEntry()) != null) {
                    Path target = hostDir.resolve(entry.getName()).normalize();
                    if (!target.startsWith(hostDir)) continue; // never write outside hostDir
                    if (entry.isDirectory()) {
                        Files.createDirectories(target);
                    } else if (entry.isFile()) {
                        Files.createDirectories(target.getParent());
                        SparseCopy.copy(in, target); // a broker's preallocated indexes are mostly zeros
                    }
                }
            }
        } catch (com.github.dockerjava.api.exception.NotFoundException missing) {
            LOG.debug("{}: nothing at {}", name, path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How much of a node's console {@link #consoleLog()} reads back into memory at most. */
    public static final int CONSOLE_TAIL_BYTES = 4 * 1024 * 1024;

    /**
     * The end of what the node program wrote to stdout/stderr, across restarts: at most {@link #CONSOLE_TAIL_BYTES}
     * (a flooding node writes hundreds of MB; the whole console is in the file {@link #streamConsoleTo} writes).
     */
    public String consoleLog() {
        return consoleTail(CONSOLE_TAIL_BYTES);
    }

    /** The last {@code maxBytes} of the node's console, from its first whole line. */
    public String consoleTail(int maxBytes) {
        var tail = new TailBuffer(maxBytes);
        try (var cb = client.logContainerCmd(containerId).withStdOut(true).withStdErr(true)
                .exec(new ResultCallback.Adapter<Frame>() {
                    @Override
                    public void onNext(Frame frame) {
                        synchronized (tail) {
                            tail.write(frame.getPayload());
                        }
                    }
                })) {
            cb.awaitCompletion(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (tail) {
            return tail.text();
        }
    }

    /**
     * Appends the node's console to {@code file} as it is written, from the node's first line on and across
     * restarts, until {@link #finishConsoleStream()}. Call once, on a started node.
     */
    public synchronized void streamConsoleTo(Path file) throws IOException {
        if (consoleStream != null) throw new IllegalStateException(name + " already streams its console to " + consoleStream.file());
        var stream = new ConsoleLogStream(client, containerId, file);
        consoleStream = stream;
        addStartListener(n -> stream.attach()); // the engine ends a follow stream when the container stops
        stream.attach();
    }

    /** The file the console streams to, or null. */
    public synchronized Path consoleFile() {
        return consoleStream == null ? null : consoleStream.file();
    }

    /** Size of the streamed console file so far (what was delivered), or -1 when not streaming. */
    public long consoleFileSize() {
        ConsoleLogStream stream;
        synchronized (this) {
            stream = consoleStream;
        }
        if (stream == null) return -1;
        stream.flush();
        try {
            return Files.size(stream.file());
        } catch (IOException e) {
            return -1;
        }
    }

    /** Completes the streamed console file with what the engine still holds and closes it; a no-op when not streaming. */
    public void finishConsoleStream() {
        ConsoleLogStream stream;
        synchronized (this) {
            stream = consoleStream;
        }
        if (stream != null) stream.finish();
    }

    /** Stops streaming the console and closes its file as it is (e.g. when the cluster is removed without collecting). */
    public void abandonConsoleStream() {
        ConsoleLogStream stream;
        synchronized (this) {
            stream = consoleStream;
        }
        if (stream != null) stream.abandon();
    }

    /** Writes the node's whole console to {@code file} without holding it in memory. */
    public void writeConsoleTo(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (var out = new java.io.BufferedOutputStream(Files.newOutputStream(file));
             var cb = client.logContainerCmd(containerId).withStdOut(true).withStdErr(true)
                     .exec(new ResultCallback.Adapter<Frame>() {
                         @Override
                         public void onNext(Frame frame) {
                             synchronized (out) {
                                 try {
                                     out.write(frame.getPayload());
                                 } catch (IOException e) {
                                     throw new UncheckedIOException(e);
                                 }
                             }
                         }
                     })) {
            cb.awaitCompletion(60, TimeUnit.SECONDS);
            synchronized (out) {
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last {@code maxBytes} of a file in the node (from its first whole line); works while the node is stopped. */
    public String readTail(String path, int maxBytes) {
        try (InputStream tar = client.copyArchiveFromContainerCmd(containerId, path).exec();
             var in = new TarArchiveInputStream(tar)) {
            TarArchiveEntry entry = in.getNextEntry();
            if (entry == null || !entry.isFile()) throw new IllegalArgumentException(name + ": " + path + " is not a file");
            var tail = new TailBuffer(maxBytes);
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) > 0; ) tail.write(buf, 0, n);
            return tail.text();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sets this node's clock offset as libfaketime reads it ("+30s", "-1.5", "+0"). */
    public void setClockOffset(String offset) {
        writeString(Cluster.CLOCK_FILE, offset + "\n");
    }

    @Override
    public String toString() {
        return name + "(" + ip + ")";
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
