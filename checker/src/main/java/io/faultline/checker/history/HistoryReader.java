package io.faultline.checker.history;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            return read(utf8Lines(in), true, file.getFileName().toString());
        }
    }

    public static List<Op> readStrict(Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            return read(utf8Lines(in), false, file.getFileName().toString()).ops();
        }
    }

    public static List<Op> read(Reader reader, boolean tolerateTornTail) throws IOException {
        return read(reader, tolerateTornTail, "history").ops();
    }

    public static Read read(Reader reader, boolean tolerateTornTail, String fileName) throws IOException {
        BufferedReader r = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        return read(r::readLine, tolerateTornTail, fileName);
    }

    /** The next line, or null at the end; a line that is not text throws {@link NotText} and reading goes on. */
    private interface Lines {
        String next() throws IOException;
    }

    /** A line whose bytes are not UTF-8: a bad line like any other, not a failure of the whole read. */
    private static final class NotText extends IOException {
        NotText(String message) {
            super(message, null);
        }
    }

    /**
     * Lines of UTF-8, split at '\n' on the bytes, so that one undecodable byte spoils its own line only (a reader
     * over the whole stream would throw MalformedInputException and lose the line number).
     */
    private static Lines utf8Lines(InputStream in) {
        return new Lines() {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
            private boolean ended;

            @Override
            public String next() throws IOException {
                if (ended) {
                    return null;
                }
                line.reset();
                int c;
                while ((c = in.read()) != -1 && c != '\n') {
                    line.write(c);
                }
                if (c == -1) {
                    ended = true;
                    if (line.size() == 0) {
                        return null;
                    }
                }
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                try {
                    return StandardCharsets.UTF_8.newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes, 0, length)).toString();
                } catch (CharacterCodingException e) {
                    int at = firstBadByte(bytes, length);
                    throw new NotText("not UTF-8 text (byte 0x" + String.format("%02x", bytes[at] & 0xff)
                            + " at column " + (at + 1) + ")");
                }
            }
        };
    }

    /** Position of the first byte that starts no valid UTF-8 sequence (for the message only). */
    private static int firstBadByte(byte[] bytes, int length) {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, length);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(length + 1);
        var result = decoder.decode(in, out, true);
        return result.isError() ? Math.min(in.position(), length - 1) : 0;
    }

    /** Thrown for a line that is not a history op and is not a torn last line. */
    public static final class MalformedHistoryException extends IOException {
        MalformedHistoryException(String message) {
            super(message);
        }
    }

    private static Read read(Lines r, boolean tolerateTornTail, String fileName) throws IOException {
        List<Op> ops = new ArrayList<>();
        String line;
        String pendingProblem = null; // what is wrong with an earlier line: fine only if nothing follows it
        String pendingCaveat = null;
        long lineNo = 0;
        while (true) {
            String problem = null; // what is wrong with this line, if anything
            try {
                line = r.next();
                if (line == null) {
                    break;
                }
            } catch (NotText e) {
                line = null;
                problem = e.getMessage();
            }
            lineNo++;
            if (line != null && line.isBlank()) {
                continue;
            }
            if (pendingProblem != null) {
                throw new MalformedHistoryException(pendingProblem);
            }
            if (line != null) {
                try (JsonParser p = HistoryJson.FACTORY.createParser(line)) {
                    if (p.nextToken() != JsonToken.START_OBJECT) {
                        throw new IOException("not a JSON object");
                    }
                    ops.add(HistoryJson.read(p));
                    continue;
                } catch (IOException | RuntimeException e) {
                    problem = describe(e);
                }
            }
            String what = fileName + " line " + lineNo + ": " + problem;
            if (!tolerateTornTail) {
                throw new MalformedHistoryException(what);
            }
            pendingProblem = what;
            pendingCaveat = "dropped the last line of " + fileName + " (line " + lineNo + ", torn or not JSON: "
                    + problem + ")";
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
