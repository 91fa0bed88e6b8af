package io.faultline.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedOutputStream;
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
    private Instant last; // the engine's timestamp of the last line written
    private Closeable following;
    private boolean closed;

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
        synchronized (this) {
            closed = true;
            try {
                out.close();
            } catch (IOException e) {
                LOG.warn("{}: {}", file, e.toString());
            }
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

    private int sinceSecond() {
        return last == null ? 0 : (int) last.getEpochSecond();
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

    /** One payload: lines "2026-12-01T20:30:38.123456789Z text". Lines not newer than the last written are repeats. */
    private synchronized void write(byte[] payload) {
        if (closed) return;
        int start = 0;
        while (start < payload.length) {
            int end = start;
            while (end < payload.length && payload[end] != '\n') end++;
            writeLine(payload, start, Math.min(payload.length, end + 1));
            start = end + 1;
        }
    }

    private void writeLine(byte[] b, int from, int to) {
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
            if (last != null && !at.isAfter(last)) return;
            last = at;
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
            write(frame.getPayload());
        }
    }
}
