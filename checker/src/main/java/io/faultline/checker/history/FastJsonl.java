package io.faultline.checker.history;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * The fast path of {@link HistoryReader}: a byte-level reader for exactly the JSON our own writer produces (no
 * whitespace, no escapes, integers only). Streaming Jackson took 27-43% of `analyze`'s main thread (profiled).
 * A line it does not recognise is handed to Jackson on its own; a line Jackson cannot read either makes the
 * whole read return null, so that the careful reader (which names bad lines and drops a torn tail) decides.
 * Whatever this class accepts, it turns into the very Op that {@link HistoryJson#read} would build.
 */
final class FastJsonl {
    private FastJsonl() {}

    /** Thrown (without a stack trace: it is control flow) when a line is not in the canonical shape. */
    private static final class NotCanonical extends Exception {
        static final NotCanonical INSTANCE = new NotCanonical();

        private NotCanonical() {
            super(null, null, false, false);
        }
    }

    /** Below this size one thread reads the file: a second one would cost more to start than it saves. */
    static final long PARALLEL_FROM_BYTES = 4 << 20;

    /**
     * Every op of the file, or null if some line needs the careful reader. A large file is read as two halves
     * side by side (each line belongs to the half its first byte is in; lines carry no state from one to the
     * next), and the halves' ops are joined in file order: the same list as from one pass, in about half the
     * wall time when a second core is free. The checkers cannot start before the whole history is read.
     */
    static List<Op> tryRead(Path file) throws IOException {
        long size = Files.size(file);
        if (size < PARALLEL_FROM_BYTES || Runtime.getRuntime().availableProcessors() < 2) {
            return tryRead(file, 0, Long.MAX_VALUE);
        }
        return tryReadInTwo(file, size / 2);
    }

    /** The file read as lines starting before {@code split} and lines starting at or after it, side by side. */
    static List<Op> tryReadInTwo(Path file, long split) throws IOException {
        FutureTask<List<Op>> firstHalf = new FutureTask<>(() -> tryRead(file, 0, split));
        Thread t = new Thread(firstHalf, "history-reader");
        t.setDaemon(true);
        t.start();
        List<Op> second = tryRead(file, split, Long.MAX_VALUE);
        List<Op> first;
        try {
            first = firstHalf.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + file, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            if (e.getCause() instanceof Error err) throw err;
            throw new IOException(e.getCause());
        }
        if (first == null || second == null) return null;
        List<Op> ops = new ArrayList<>(first.size() + second.size());
        ops.addAll(first);
        ops.addAll(second);
        return ops;
    }

    /**
     * The ops of the lines whose first byte lies in [from, to), or null if one of them needs the careful reader.
     * A line that starts before {@code to} is read to its end, wherever that is.
     */
    static List<Op> tryRead(Path file, long from, long to) throws IOException {
        List<Op> ops = new ArrayList<>();
        Line line = new Line();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            // From the byte before `from`: if it ends a line, the first whole line starts exactly at `from`.
            ch.position(from > 0 ? from - 1 : 0);
            InputStream in = Channels.newInputStream(ch);
            boolean skipPartialLine = from > 0;
            byte[] buf = new byte[1 << 20];
            long bufStart = from > 0 ? from - 1 : 0; // file position of buf[0]
            int start = 0;
            int end = 0;
            boolean eof = false;
            while (true) {
                int nl = -1;
                for (int i = start; i < end; i++) {
                    if (buf[i] == '\n') {
                        nl = i;
                        break;
                    }
                }
                if (nl < 0 && !eof) {
                    // Move the partial line to the front (growing the buffer for a very long line) and read more.
                    int len = end - start;
                    if (len == buf.length) buf = Arrays.copyOf(buf, buf.length * 2);
                    else System.arraycopy(buf, start, buf, 0, len);
                    bufStart += start;
                    start = 0;
                    end = len;
                    int n = in.read(buf, end, buf.length - end);
                    if (n < 0) eof = true;
                    else end += n;
                    continue;
                }
                if (skipPartialLine) {
                    // The line in progress at `from` belongs to the other half.
                    skipPartialLine = false;
                    if (nl < 0) return ops;
                    start = nl + 1;
                    continue;
                }
                if (bufStart + start >= to) return ops;
                int lineEnd = nl < 0 ? end : nl;
                if (!line.readInto(buf, start, lineEnd, ops)) return null;
                if (nl < 0) return ops;
                start = nl + 1;
            }
        }
    }

    /** A cursor over one line. */
    private static final class Line {
        /** One per reader thread, reused for every key of every poll: growing a fresh one per list showed up. */
        private final RecordList.Builder recs = new RecordList.Builder();
        private byte[] b;
        private int pos;
        private int end;

        /** Adds the line's op (if it is not blank); false if Jackson cannot read it either. */
        boolean readInto(byte[] buf, int from, int to, List<Op> ops) {
            b = buf;
            pos = from;
            end = to;
            if (blankFrom(from)) return true;
            try {
                ops.add(op());
                return true;
            } catch (NotCanonical | RuntimeException e) {
                return viaJackson(buf, from, to, ops);
            }
        }

        private boolean blankFrom(int i) {
            for (; i < end; i++) {
                byte c = b[i];
                if (c != ' ' && c != '\t' && c != '\r') return false;
            }
            return true;
        }

        /** Exactly one object on the line, read as the streaming reader would read it. */
        private static boolean viaJackson(byte[] buf, int from, int to, List<Op> ops) {
            try (JsonParser p = HistoryJson.FACTORY.createParser(buf, from, to - from)) {
                if (p.nextToken() != JsonToken.START_OBJECT) return false;
                Op op = HistoryJson.read(p);
                if (p.nextToken() != null) return false;
                ops.add(op);
                return true;
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }

        private Op op() throws NotCanonical {
            expect('{');
            long index = -1;
            long time = 0;
            int process = 0;
            OpType type = null;
            String f = null;
            String error = null;
            boolean seek = false;
            boolean seekToEnd = false;
            String group = null;
            OpValue value = OpValue.None.INSTANCE;
            List<Integer> keys = null; // an assign/subscribe value: built at the end, when seek is known
            if (peek() != '}') {
                do {
                    // Matched as bytes: a String per field name and per type cost a fifth of this reader.
                    String name = skip("\"index\":") ? "index" : skip("\"type\":") ? "type"
                            : skip("\"process\":") ? "process" : skip("\"time\":") ? "time"
                            : skip("\"f\":") ? "f" : skip("\"value\":") ? "value" : fieldName();
                    switch (name) {
                        case "index" -> index = longNumber();
                        case "type" -> type = skip("\"ok\"") ? OpType.OK : skip("\"invoke\"") ? OpType.INVOKE
                                : typeOf(string());
                        case "process" -> process = intNumber();
                        case "time" -> time = longNumber();
                        case "f" -> {
                            if (f != null) throw NotCanonical.INSTANCE; // which f the value was read for: Jackson's
                            f = skip("\"send\"") ? Op.SEND : skip("\"poll\"") ? Op.POLL
                                    : HistoryJson.canonical(string());
                        }
                        case "error" -> error = peek() == 'n' ? literal("null", null) : string();
                        case "seekToBeginning" -> seek = peek() == 't' ? literal("true", true) : literal("false", false);
                        case "seekToEnd" -> seekToEnd = peek() == 't' ? literal("true", true) : literal("false", false);
                        case "group" -> group = peek() == 'n' ? literal("null", null) : string();
                        case "value" -> {
                            keys = null;
                            byte c = peek();
                            if (c == 'n') {
                                value = literal("null", OpValue.None.INSTANCE);
                            } else if (c == '"') {
                                value = new OpValue.Text(string());
                            } else if (c == '[' && f != null && (Op.ASSIGN.equals(f) || Op.SUBSCRIBE.equals(f))) {
                                keys = keys();
                            } else if (c == '[' && f != null) {
                                value = mops();
                            } else {
                                throw NotCanonical.INSTANCE;
                            }
                        }
                        default -> throw NotCanonical.INSTANCE;
                    }
                } while (comma());
            }
            expect('}');
            if (!blankFrom(pos) || type == null || f == null) throw NotCanonical.INSTANCE;
            if (keys != null) {
                if (seek && seekToEnd) throw NotCanonical.INSTANCE; // the general reader reports it
                value = new OpValue.Keys(keys, seek, group, seekToEnd);
            }
            return new Op(index, type, process, time, f, value, error);
        }

        private String fieldName() throws NotCanonical {
            String name = string();
            expect(':');
            return name;
        }

        private static OpType typeOf(String s) throws NotCanonical {
            return switch (s) {
                case "invoke" -> OpType.INVOKE;
                case "ok" -> OpType.OK;
                case "fail" -> OpType.FAIL;
                case "info" -> OpType.INFO;
                default -> throw NotCanonical.INSTANCE;
            };
        }

        private List<Integer> keys() throws NotCanonical {
            expect('[');
            List<Integer> out = new ArrayList<>();
            if (peek() != ']') {
                do {
                    out.add(intNumber());
                } while (comma());
            }
            expect(']');
            return out;
        }

        private OpValue.Txn mops() throws NotCanonical {
            expect('[');
            List<MicroOp> out = new ArrayList<>(2);
            if (peek() != ']') {
                do {
                    out.add(mop());
                } while (comma());
            }
            expect(']');
            return new OpValue.Txn(out);
        }

        private MicroOp mop() throws NotCanonical {
            expect('[');
            expect('"');
            MicroOp m;
            if (skip("send\"")) {
                expect(',');
                int key = intNumber();
                expect(',');
                if (peek() == '[') {
                    pos++;
                    Long offset = peek() == 'n' ? literal("null", null) : Long.valueOf(longNumber());
                    expect(',');
                    long v = longNumber();
                    expect(']');
                    m = new MicroOp.Send(key, v, offset);
                } else {
                    m = new MicroOp.Send(key, longNumber(), null);
                }
            } else if (skip("poll\"")) {
                if (peek() == ']') {
                    m = MicroOp.Poll.invoke();
                } else {
                    expect(',');
                    m = peek() == 'n' ? literal("null", MicroOp.Poll.invoke()) : new MicroOp.Poll(reads());
                }
            } else {
                throw NotCanonical.INSTANCE;
            }
            expect(']');
            return m;
        }

        private Map<Integer, List<MicroOp.Record>> reads() throws NotCanonical {
            expect('{');
            Map<Integer, List<MicroOp.Record>> reads = new TreeMap<>();
            if (peek() != '}') {
                do {
                    expect('"');
                    int key = intNumber();
                    expect('"');
                    expect(':');
                    expect('[');
                    recs.reset();
                    if (peek() != ']') {
                        do {
                            expect('[');
                            long offset = longNumber();
                            expect(',');
                            long v = longNumber();
                            expect(']');
                            recs.add(offset, v);
                        } while (comma());
                    }
                    expect(']');
                    reads.put(key, recs.build());
                } while (comma());
            }
            expect('}');
            return reads;
        }

        // ---- tokens ----

        private byte peek() throws NotCanonical {
            if (pos >= end) throw NotCanonical.INSTANCE;
            return b[pos];
        }

        private void expect(char c) throws NotCanonical {
            if (pos >= end || b[pos] != c) throw NotCanonical.INSTANCE;
            pos++;
        }

        private boolean comma() {
            if (pos < end && b[pos] == ',') {
                pos++;
                return true;
            }
            return false;
        }

        /** Skips {@code s} if the input continues with it. */
        private boolean skip(String s) {
            int n = s.length();
            if (end - pos < n) return false;
            for (int i = 0; i < n; i++) {
                if (b[pos + i] != s.charAt(i)) return false;
            }
            pos += n;
            return true;
        }

        private <T> T literal(String word, T result) throws NotCanonical {
            if (!skip(word)) throw NotCanonical.INSTANCE;
            return result;
        }

        /** A string of printable ASCII without escapes (anything else goes to Jackson). */
        private String string() throws NotCanonical {
            expect('"');
            int from = pos;
            while (pos < end) {
                byte c = b[pos];
                if (c == '"') {
                    String s = new String(b, from, pos - from, StandardCharsets.ISO_8859_1);
                    pos++;
                    return s;
                }
                if (c < 0x20 || c == '\\') throw NotCanonical.INSTANCE; // also rejects bytes ≥ 0x80 (negative)
                pos++;
            }
            throw NotCanonical.INSTANCE;
        }

        private int intNumber() throws NotCanonical {
            long v = longNumber();
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw NotCanonical.INSTANCE;
            return (int) v;
        }

        /** A JSON integer of at most 18 digits (so it cannot overflow); no fraction or exponent. */
        private long longNumber() throws NotCanonical {
            boolean negative = pos < end && b[pos] == '-';
            if (negative) pos++;
            int from = pos;
            long v = 0;
            while (pos < end) {
                int d = b[pos] - '0';
                if (d < 0 || d > 9) break;
                v = v * 10 + d;
                pos++;
            }
            int digits = pos - from;
            if (digits == 0 || digits > 18 || (digits > 1 && b[from] == '0')) throw NotCanonical.INSTANCE;
            if (pos < end && (b[pos] == '.' || b[pos] == 'e' || b[pos] == 'E')) throw NotCanonical.INSTANCE;
            return negative ? -v : v;
        }
    }
}
