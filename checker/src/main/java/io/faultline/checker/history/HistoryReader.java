package io.faultline.checker.history;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a JSON Lines history. A run that crashed mid-write may leave a torn last line; {@link #readWithCaveats}
 * drops it and says so, {@link #read(Path)} drops it silently, {@link #readStrict(Path)} treats it as an error.
 * A bad line anywhere else is always an error: {@link MalformedHistoryException} names the file, the line and
 * what is wrong with it.
 */
public final class HistoryReader {
    private HistoryReader() {
    }

    /** The ops read, and what was dropped on the way (empty when the file was whole). */
    public record Read(List<Op> ops, List<String> caveats) {
        public Read {
            caveats = List.copyOf(caveats);
        }
    }

    public static List<Op> read(Path file) throws IOException {
        return readWithCaveats(file).ops();
    }

    public static Read readWithCaveats(Path file) throws IOException {
        List<Op> fast = FastJsonl.tryRead(file);
        if (fast != null) {
            return new Read(fast, List.of());
        }
        // Next: one byte-level parser over the whole file. Any problem sends us to the line-by-line reader,
        // which knows which line is bad and whether it is the last one.
        try (InputStream in = Files.newInputStream(file);
             JsonParser p = HistoryJson.FACTORY.createParser(new BufferedInputStream(in, 1 << 16))) {
            List<Op> ops = new ArrayList<>();
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_OBJECT) {
                    throw new IOException("not a JSON object");
                }
                ops.add(HistoryJson.read(p));
            }
            return new Read(ops, List.of());
        } catch (IOException | RuntimeException slowPathKnowsBetter) {
            // fall through
        }
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, true, file.getFileName().toString());
        }
    }

    public static List<Op> readStrict(Path file) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, false, file.getFileName().toString()).ops();
        }
    }

    public static List<Op> read(Reader reader, boolean tolerateTornTail) throws IOException {
        return read(reader, tolerateTornTail, "history").ops();
    }

    /** Thrown for a line that is not a history op and is not a torn last line. */
    public static final class MalformedHistoryException extends IOException {
        MalformedHistoryException(String message) {
            super(message);
        }
    }

    public static Read read(Reader reader, boolean tolerateTornTail, String fileName) throws IOException {
        BufferedReader r = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<Op> ops = new ArrayList<>();
        String line;
        String pendingProblem = null; // what is wrong with an earlier line: fine only if nothing follows it
        String pendingCaveat = null;
        long lineNo = 0;
        while ((line = r.readLine()) != null) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            if (pendingProblem != null) {
                throw new MalformedHistoryException(pendingProblem);
            }
            try (JsonParser p = HistoryJson.FACTORY.createParser(line)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new IOException("not a JSON object");
                }
                ops.add(HistoryJson.read(p));
            } catch (IOException | RuntimeException e) {
                String what = fileName + " line " + lineNo + ": " + describe(e);
                if (!tolerateTornTail) {
                    throw new MalformedHistoryException(what);
                }
                pendingProblem = what;
                pendingCaveat = "dropped the last line of " + fileName + " (line " + lineNo + ", torn or not JSON: "
                        + describe(e) + ")";
            }
        }
        List<String> caveats = pendingCaveat == null ? List.of() : List.of(pendingCaveat);
        return new Read(ops, caveats);
    }

    private static String describe(Throwable e) {
        String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        if (m == null) {
            m = e.getClass().getSimpleName();
        }
        m = m.replace('\n', ' ');
        return m.length() > 160 ? m.substring(0, 160) + "…" : m;
    }
}
