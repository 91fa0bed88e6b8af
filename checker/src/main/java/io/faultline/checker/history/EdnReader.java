package io.faultline.checker.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads back the EDN that {@link EdnWriter} produces (and Jepsen-style histories of the same shape): a sequence of
 * op maps, optionally wrapped in one vector. Supports the EDN subset such histories use: maps, vectors, lists,
 * keywords, integers, strings, nil, booleans; commas are whitespace; {@code ;} comments.
 */
public final class EdnReader {
    /** An EDN keyword, kept distinct from strings while parsing. */
    record Keyword(String name) {
    }

    private final String s;
    private int pos;

    private EdnReader(String s) {
        this.s = s;
    }

    public static List<Op> read(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    public static List<Op> parse(String text) {
        EdnReader r = new EdnReader(text);
        List<Op> ops = new ArrayList<>();
        while (true) {
            r.skipWs();
            if (r.pos >= r.s.length()) {
                return ops;
            }
            Object form = r.readForm();
            if (form instanceof List<?> list) { // a whole history wrapped in a vector
                for (Object o : list) {
                    ops.add(toOp((Map<Object, Object>) o));
                }
            } else {
                ops.add(toOp((Map<Object, Object>) form));
            }
        }
    }

    private static Op toOp(Map<Object, Object> m) {
        long index = num(m.get(new Keyword("index")), -1);
        OpType type = OpType.fromWire(((Keyword) m.get(new Keyword("type"))).name());
        Object proc = m.get(new Keyword("process"));
        int process = proc instanceof Keyword k && k.name().equals("nemesis") ? Op.NEMESIS : (int) num(proc, 0);
        long time = num(m.get(new Keyword("time")), 0);
        Object fo = m.get(new Keyword("f"));
        String f = fo instanceof Keyword k ? k.name() : String.valueOf(fo);
        boolean seek = Boolean.TRUE.equals(m.get(new Keyword("seek-to-beginning?")));
        Object err = m.get(new Keyword("error"));
        String error = err == null ? null : err instanceof Keyword k ? k.name() : String.valueOf(err);
        OpValue value = HistoryJson.toValue(f, keywordsToStrings(m.get(new Keyword("value"))), seek);
        if (m.get(new Keyword("group")) instanceof String group && value instanceof OpValue.Keys k) {
            value = k.withGroup(group);
        }
        if (Boolean.TRUE.equals(m.get(new Keyword("seek-to-end?"))) && value instanceof OpValue.Keys k && !k.seekToBeginning()) {
            value = k.withSeekToEnd();
        }
        return new Op(index, type, process, time, f, value, error);
    }

    private static long num(Object o, long dflt) {
        return o instanceof Number n ? n.longValue() : dflt;
    }

    /** The shared value decoder speaks strings for micro-op names; EDN spells them as keywords. */
    private static Object keywordsToStrings(Object o) {
        if (o instanceof Keyword k) {
            return k.name();
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object x : l) {
                out.add(keywordsToStrings(x));
            }
            return out;
        }
        if (o instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.put(keywordsToStrings(e.getKey()), keywordsToStrings(e.getValue()));
            }
            return out;
        }
        return o;
    }

    private void skipWs() {
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c == ';') {
                while (pos < s.length() && s.charAt(pos) != '\n') {
                    pos++;
                }
            } else if (Character.isWhitespace(c) || c == ',') {
                pos++;
            } else {
                return;
            }
        }
    }

    private Object readForm() {
        skipWs();
        if (pos >= s.length()) {
            throw error("unexpected end of input");
        }
        char c = s.charAt(pos);
        switch (c) {
            case '{' -> {
                pos++;
                Map<Object, Object> m = new LinkedHashMap<>();
                while (true) {
                    skipWs();
                    if (peek() == '}') {
                        pos++;
                        return m;
                    }
                    Object k = readForm();
                    Object v = readForm();
                    m.put(k, v);
                }
            }
            case '[', '(' -> {
                char close = c == '[' ? ']' : ')';
                pos++;
                List<Object> l = new ArrayList<>();
                while (true) {
                    skipWs();
                    if (peek() == close) {
                        pos++;
                        return l;
                    }
                    l.add(readForm());
                }
            }
            case '"' -> {
                return readString();
            }
            case ':' -> {
                pos++;
                return new Keyword(readToken());
            }
            default -> {
                String tok = readToken();
                switch (tok) {
                    case "nil":
                        return null;
                    case "true":
                        return Boolean.TRUE;
                    case "false":
                        return Boolean.FALSE;
                    default:
                        try {
                            return Long.parseLong(tok.endsWith("N") ? tok.substring(0, tok.length() - 1) : tok);
                        } catch (NumberFormatException e) {
                            return new Keyword(tok); // a bare symbol; good enough for our purposes
                        }
                }
            }
        }
    }

    private char peek() {
        if (pos >= s.length()) {
            throw error("unexpected end of input");
        }
        return s.charAt(pos);
    }

    private String readToken() {
        int start = pos;
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (Character.isWhitespace(c) || c == ',' || "{}[]()\"".indexOf(c) >= 0) {
                break;
            }
            pos++;
        }
        if (start == pos) {
            throw error("empty token");
        }
        return s.substring(start, pos);
    }

    private String readString() {
        pos++; // opening quote
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = peek();
            pos++;
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\\') {
                char e = peek();
                pos++;
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    default -> sb.append(e);
                }
            } else {
                sb.append(c);
            }
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("EDN: " + what + " at offset " + pos);
    }
}
