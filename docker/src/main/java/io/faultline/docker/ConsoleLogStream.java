package io.faultline.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.concurrent.TimeUnit;

/**
 * A node's console (stdout and stderr) appended to a file on the host as the engine delivers it, so nothing holds a
 * whole log in memory and the file's size tells how fast the node logs. The engine's follow stream ends when the
 * container stops, so {@link #attach()} runs again after every start; lines come with the engine's timestamps, and
 * only lines newer than the last one written are kept, so a re-attach (from that second on) repeats nothing.
 * {@link #finish()} fetches what the last stream may have missed and closes the file.
 */
final class ConsoleLogStream {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleLogStream.class);

    private final DockerClient client;
    private final String containerId;
    private final Path file;
    private final OutputStream out;
    /** Per stream, the engine's timestamp of the last line written (each stream is in time order). */
    private final java.util.Map<StreamType, Instant> last = new java.util.EnumMap<>(StreamType.class);
    private Closeable following;
    private boolean closed;
    /** Per stream, the start of a line whose end has not arrived yet. */
    private final java.util.Map<StreamType, ByteArrayOutputStream> partials = new java.util.EnumMap<>(StreamType.class);
    private static final int MAX_LINE_BYTES = 1024 * 1024;

    ConsoleLogStream(DockerClient client, String containerId, Path file) throws IOException {
        this.client = client;
        this.containerId = containerId;
        this.file = file;
        Files.createDirectories(file.toAbsolutePath().getParent());
        this.out = new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), 64 * 1024);
    }

    Path file() {
        return file;
    }

    /** Follows the console from the last line written on (from the start the first time). */
    synchronized void attach() {
        if (closed) return;
        closeFollowing();
        following = client.logContainerCmd(containerId).withStdOut(true).withStdErr(true).withTimestamps(true)
                .withFollowStream(true).withSince(sinceSecond()).exec(new Sink());
    }

    /** Writes what the streams have not delivered yet (the node is stopped or about to be removed) and closes. */
    void finish() {
        synchronized (this) {
            if (closed) return;
            closeFollowing();
        }
        try (Sink rest = client.logContainerCmd(containerId).withStdOut(true).withStdErr(true).withTimestamps(true)
                .withSince(sinceSecond()).exec(new Sink())) {
            rest.awaitCompletion(30, TimeUnit.SECONDS);
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: could not fetch the end of the console log: {}", file, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeFile();
    }

    /** Stops following and closes the file with what it has (no fetch: the cluster is going away). */
    void abandon() {
        synchronized (this) {
            closeFollowing();
        }
        closeFile();
    }

    /** Writes any line still missing its end, and closes the file. */
    synchronized void closeFile() {
        if (closed) return;
        java.util.List.copyOf(partials.keySet()).forEach(this::flushPartial);
        closed = true;
        try {
            out.close();
        } catch (IOException e) {
            LOG.warn("{}: {}", file, e.toString());
        }
    }

    /** Makes what was written so far visible in the file. */
    synchronized void flush() {
        if (closed) return;
        try {
            out.flush();
        } catch (IOException e) {
            LOG.warn("{}: {}", file, e.toString());
        }
    }

    /** From the second of the earliest stream's last line: a re-attach misses nothing, and repeats are dropped. */
    private synchronized int sinceSecond() {
        return last.values().stream().min(Instant::compareTo).map(t -> (int) t.getEpochSecond()).orElse(0);
    }

    private void closeFollowing() {
        if (following == null) return;
        try {
            following.close();
        } catch (IOException | RuntimeException ignored) {
            // the stream is gone either way
        }
        following = null;
    }

    /**
     * One frame: a piece of the stdout or stderr stream, not necessarily whole lines (a line, or even its timestamp,
     * may be split between frames). Bytes are gathered per stream until a line ends; only whole lines are written.
     */
    synchronized void write(StreamType stream, byte[] payload) {
        if (closed) return;
        StreamType type = stream == null ? StreamType.RAW : stream;
        var partial = partials.computeIfAbsent(type, k -> new ByteArrayOutputStream());
        int start = 0;
        for (int i = 0; i < payload.length; i++) {
            if (payload[i] != '\n') continue;
            if (partial.size() == 0) {
                writeLine(type, payload, start, i + 1);
            } else {
                partial.write(payload, start, i + 1 - start);
                byte[] line = partial.toByteArray();
                partial.reset();
                writeLine(type, line, 0, line.length);
            }
            start = i + 1;
        }
        partial.write(payload, start, payload.length - start);
        if (partial.size() > MAX_LINE_BYTES) flushPartial(type); // a line without end: written as it is
    }

    private void flushPartial(StreamType type) {
        var partial = partials.get(type);
        if (partial == null || partial.size() == 0) return;
        byte[] rest = partial.toByteArray();
        partial.reset();
        writeLine(type, rest, 0, rest.length);
    }

    private void writeLine(StreamType type, byte[] b, int from, int to) {
        int space = -1;
        for (int i = from; i < Math.min(to, from + 64); i++) {
            if (b[i] == ' ') {
                space = i;
                break;
            }
        }
        Instant at = null;
        if (space > from) {
            try {
                at = Instant.parse(new String(b, from, space - from, StandardCharsets.US_ASCII));
            } catch (DateTimeParseException notAStamp) {
                // a continuation of a long line: written as it is
            }
        }
        if (at != null) {
            Instant previous = last.get(type);
            if (previous != null && !at.isAfter(previous)) return;
            last.put(type, at);
            from = space + 1;
        }
        try {
            out.write(b, from, to - from);
        } catch (IOException e) {
            LOG.warn("{}: {}", file, e.toString());
        }
    }

    private final class Sink extends ResultCallback.Adapter<Frame> {
        @Override
        public void onNext(Frame frame) {
            write(frame.getStreamType(), frame.getPayload());
        }
    }
}
