package io.faultline.checker.history;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a JSON Lines history. A run that crashed mid-write may leave a torn last line; {@link #read(Path)} drops
 * it (everything before it was flushed whole), while {@link #readStrict(Path)} treats it as an error.
 */
public final class HistoryReader {
    private HistoryReader() {
    }

    public static List<Op> read(Path file) throws IOException {
        return read(file, true);
    }

    public static List<Op> readStrict(Path file) throws IOException {
        return read(file, false);
    }

    private static List<Op> read(Path file, boolean tolerateTornTail) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, tolerateTornTail);
        }
    }

    public static List<Op> read(Reader reader, boolean tolerateTornTail) throws IOException {
        BufferedReader r = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<Op> ops = new ArrayList<>();
        String line;
        String pendingBad = null;
        while ((line = r.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            if (pendingBad != null) {
                throw new IOException("malformed history line: " + pendingBad);
            }
            try (JsonParser p = HistoryJson.FACTORY.createParser(line)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new IOException("not an object");
                }
                ops.add(HistoryJson.read(p));
            } catch (IOException | RuntimeException e) {
                if (!tolerateTornTail) {
                    throw new IOException("malformed history line " + (ops.size() + 1) + ": " + line, e);
                }
                pendingBad = line; // only acceptable if it is the very last line
            }
        }
        return ops;
    }
}
