package io.faultline.checker.history;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON Lines form of one op. Values keep Jepsen's vector shape so the file is easy to read by eye and maps 1:1
 * onto EDN:
 * <pre>
 * {"index":4,"type":"ok","process":1,"time":1200,"f":"send","value":[["send",3,[12,7]]]}
 * {"index":5,"type":"ok","process":0,"time":1300,"f":"poll","value":[["poll",{"3":[[12,7]]}]]}
 * {"index":6,"type":"invoke","process":2,"time":1400,"f":"assign","value":[1,2],"seekToBeginning":true}
 * {"index":7,"type":"ok","process":3,"time":1500,"f":"subscribe","value":[1,2],"group":"q-group"}
 * </pre>
 * A send whose offset is unknown is written bare ({@code ["send",3,7]}), which is how the reader tells them apart.
 * Streaming Jackson rather than databind: it is several times faster and the shape is ours to define.
 */
public final class HistoryJson {
    // No source text in error locations: building that reference per line cost a tenth of reading a history.
    static final JsonFactory FACTORY = JsonFactory.builder()
            .disable(com.fasterxml.jackson.core.StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build();

    private HistoryJson() {
    }

    public static String toJson(Op op) {
        StringWriter w = new StringWriter(128);
        try (JsonGenerator g = FACTORY.createGenerator(w)) {
            write(g, op);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    public static Op fromJson(String line) {
        try (JsonParser p = FACTORY.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("expected a JSON object: " + line);
            }
            return read(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void write(JsonGenerator g, Op op) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", op.index());
        g.writeStringField("type", op.type().wireName());
        g.writeNumberField("process", op.process());
        g.writeNumberField("time", op.time());
        g.writeStringField("f", op.f());
        g.writeFieldName("value");
        writeValue(g, op.value());
        if (op.value() instanceof OpValue.Keys k && k.seekToBeginning()) {
            g.writeBooleanField("seekToBeginning", true);
        }
        if (op.value() instanceof OpValue.Keys k && k.seekToEnd()) {
            g.writeBooleanField("seekToEnd", true);
        }
        if (op.value() instanceof OpValue.Keys k && k.group() != null) {
            g.writeStringField("group", k.group());
        }
        if (op.error() != null) {
            g.writeStringField("error", op.error());
        }
        g.writeEndObject();
    }

    private static void writeValue(JsonGenerator g, OpValue value) throws IOException {
        // Java 17: no pattern matching for switch yet, so an instanceof chain over the sealed set.
        if (value instanceof OpValue.None) {
            g.writeNull();
        } else if (value instanceof OpValue.Text t) {
            g.writeString(t.text());
        } else if (value instanceof OpValue.Keys k) {
            g.writeStartArray();
            for (int key : k.keys()) {
                g.writeNumber(key);
            }
            g.writeEndArray();
        } else if (value instanceof OpValue.Txn t) {
            g.writeStartArray();
            for (MicroOp m : t.mops()) {
                writeMop(g, m);
            }
            g.writeEndArray();
        }
    }

    private static void writeMop(JsonGenerator g, MicroOp m) throws IOException {
        g.writeStartArray();
        if (m instanceof MicroOp.Send s) {
            g.writeString("send");
            g.writeNumber(s.key());
            if (s.offset() == null) {
                g.writeNumber(s.value());
            } else {
                g.writeStartArray();
                g.writeNumber(s.offset());
                g.writeNumber(s.value());
                g.writeEndArray();
            }
        } else if (m instanceof MicroOp.Poll p) {
            g.writeString("poll");
            if (p.reads() != null) {
                g.writeStartObject();
                for (Map.Entry<Integer, List<MicroOp.Record>> e : p.reads().entrySet()) {
                    g.writeFieldName(Integer.toString(e.getKey()));
                    g.writeStartArray();
                    for (MicroOp.Record r : e.getValue()) {
                        g.writeStartArray();
                        g.writeNumber(r.offset());
                        g.writeNumber(r.value());
                        g.writeEndArray();
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
        }
        g.writeEndArray();
    }

    /** Reads one op; the parser is positioned on the op's START_OBJECT. */
    public static Op read(JsonParser p) throws IOException {
        long index = -1;
        long time = 0;
        int process = 0;
        OpType type = null;
        String f = null;
        String error = null;
        boolean seek = false;
        boolean seekToEnd = false;
        String group = null;
        // The value's meaning depends on f, which may come after it; parse it to a neutral form first.
        Object rawValue = null;
        boolean sawValue = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            switch (name) {
                case "index" -> index = p.getLongValue();
                case "type" -> type = OpType.fromWire(p.getText());
                case "process" -> process = p.getIntValue();
                case "time" -> time = p.getLongValue();
                case "f" -> f = canonical(p.getText());
                case "error" -> error = t == JsonToken.VALUE_NULL ? null : p.getText();
                case "seekToBeginning" -> seek = p.getBooleanValue();
                case "seekToEnd" -> seekToEnd = p.getBooleanValue();
                case "group" -> group = t == JsonToken.VALUE_NULL ? null : p.getText();
                case "value" -> {
                    // Our writer puts f first, so the usual send/poll value is read straight into micro-ops.
                    OpValue fast = t == JsonToken.START_ARRAY && f != null && !Op.ASSIGN.equals(f)
                            && !Op.SUBSCRIBE.equals(f) ? readMops(p) : null;
                    rawValue = fast != null ? fast : readRaw(p);
                    sawValue = true;
                }
                default -> p.skipChildren();
            }
        }
        if (type == null || f == null) {
            throw new IOException("op without type or f at " + p.currentLocation());
        }
        OpValue value = !sawValue ? OpValue.None.INSTANCE
                : rawValue instanceof OpValue v ? v : toValue(f, rawValue, seek);
        if (group != null && value instanceof OpValue.Keys k) value = k.withGroup(group);
        if (seekToEnd && value instanceof OpValue.Keys k) {
            if (k.seekToBeginning()) throw new IOException("op " + index + " seeks both to the beginning and to the end");
            value = k.withSeekToEnd();
        }
        return new Op(index, type, process, time, f, value, error);
    }

    /** The usual op names as one shared string each: a long history would otherwise hold a copy per op. */
    static String canonical(String f) {
        return switch (f) {
            case Op.SEND -> Op.SEND;
            case Op.POLL -> Op.POLL;
            case Op.TXN -> Op.TXN;
            case Op.ASSIGN -> Op.ASSIGN;
            case Op.SUBSCRIBE -> Op.SUBSCRIBE;
            case Op.CRASH -> Op.CRASH;
            default -> f;
        };
    }

    /**
     * Reads a vector of micro-ops straight from the parser (positioned on its START_ARRAY). Anything unexpected
     * is an error with the location, as the generic path would report it.
     */
    private static OpValue readMops(JsonParser p) throws IOException {
        List<MicroOp> mops = new ArrayList<>(2);
        while (p.nextToken() != JsonToken.END_ARRAY) {
            expect(p, JsonToken.START_ARRAY);
            expect(p.nextToken() == JsonToken.VALUE_STRING, p, "a micro-op name");
            String kind = p.getText();
            if (kind.equals("send")) {
                expect(p.nextToken() == JsonToken.VALUE_NUMBER_INT, p, "a key");
                int key = p.getIntValue();
                JsonToken t = p.nextToken();
                if (t == JsonToken.START_ARRAY) {
                    t = p.nextToken();
                    Long offset = t == JsonToken.VALUE_NULL ? null : number(p);
                    expect(p.nextToken() == JsonToken.VALUE_NUMBER_INT, p, "a value");
                    long value = p.getLongValue();
                    expect(p.nextToken() == JsonToken.END_ARRAY, p, "]");
                    mops.add(new MicroOp.Send(key, value, offset));
                } else {
                    mops.add(new MicroOp.Send(key, number(p), null));
                }
                expect(p.nextToken() == JsonToken.END_ARRAY, p, "]");
            } else if (kind.equals("poll")) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.END_ARRAY) {
                    mops.add(MicroOp.Poll.invoke());
                    continue;
                }
                if (t == JsonToken.VALUE_NULL) {
                    mops.add(MicroOp.Poll.invoke());
                } else {
                    expect(p, JsonToken.START_OBJECT);
                    Map<Integer, List<MicroOp.Record>> reads = new java.util.TreeMap<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        int key;
                        try {
                            key = Integer.parseInt(p.currentName());
                        } catch (NumberFormatException e) {
                            throw new IOException("poll key is not a number at " + p.currentLocation());
                        }
                        expect(p.nextToken() == JsonToken.START_ARRAY, p, "a list of records");
                        RecordList.Builder recs = new RecordList.Builder();
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            expect(p, JsonToken.START_ARRAY);
                            p.nextToken();
                            long offset = number(p);
                            p.nextToken();
                            long value = number(p);
                            expect(p.nextToken() == JsonToken.END_ARRAY, p, "]");
                            recs.add(offset, value);
                        }
                        reads.put(key, recs.build());
                    }
                    mops.add(new MicroOp.Poll(reads));
                }
                expect(p.nextToken() == JsonToken.END_ARRAY, p, "]");
            } else {
                throw new IOException("unknown micro-op: " + kind);
            }
        }
        return new OpValue.Txn(mops);
    }

    private static long number(JsonParser p) throws IOException {
        expect(p.currentToken() == JsonToken.VALUE_NUMBER_INT, p, "a number");
        return p.getLongValue();
    }

    private static void expect(JsonParser p, JsonToken token) throws IOException {
        expect(p.currentToken() == token, p, token.asString() == null ? token.name() : token.asString());
    }

    private static void expect(boolean ok, JsonParser p, String what) throws IOException {
        if (!ok) {
            throw new IOException("expected " + what + " at column " + p.currentLocation().getColumnNr()
                    + ", found " + p.currentToken());
        }
    }

    /** Generic tree: List, Map (String keys), Long, String, Boolean, null. */
    private static Object readRaw(JsonParser p) throws IOException {
        switch (p.currentToken()) {
            case START_ARRAY -> {
                List<Object> out = new ArrayList<>(4);
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    out.add(readRaw(p));
                }
                return out;
            }
            case START_OBJECT -> {
                Map<String, Object> out = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    p.nextToken();
                    out.put(k, readRaw(p));
                }
                return out;
            }
            case VALUE_NUMBER_INT -> {
                return p.getLongValue();
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return p.getBooleanValue();
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new IOException("unexpected token " + p.currentToken());
        }
    }

    /** Shared by the JSON and EDN readers: both parse to the same neutral tree first. */
    @SuppressWarnings("unchecked")
    static OpValue toValue(String f, Object raw, boolean seek) {
        if (raw == null) {
            return OpValue.None.INSTANCE;
        }
        if (raw instanceof String s) {
            return new OpValue.Text(s);
        }
        if (!(raw instanceof List<?> list)) {
            return new OpValue.Text(String.valueOf(raw));
        }
        if (Op.ASSIGN.equals(f) || Op.SUBSCRIBE.equals(f)) {
            List<Integer> keys = new ArrayList<>(list.size());
            for (Object o : list) {
                keys.add(((Number) o).intValue());
            }
            return new OpValue.Keys(keys, seek);
        }
        List<MicroOp> mops = new ArrayList<>(list.size());
        for (Object o : list) {
            List<Object> m = (List<Object>) o;
            String kind = (String) m.get(0);
            if (kind.equals("send")) {
                int key = ((Number) m.get(1)).intValue();
                Object v = m.get(2);
                if (v instanceof List<?> pair) {
                    Object off = pair.get(0);
                    mops.add(new MicroOp.Send(key, ((Number) pair.get(1)).longValue(),
                            off == null ? null : ((Number) off).longValue()));
                } else {
                    mops.add(new MicroOp.Send(key, ((Number) v).longValue(), null));
                }
            } else if (kind.equals("poll")) {
                if (m.size() < 2 || m.get(1) == null) {
                    mops.add(MicroOp.Poll.invoke());
                } else {
                    Map<Object, Object> byKey = (Map<Object, Object>) m.get(1);
                    Map<Integer, List<MicroOp.Record>> reads = new LinkedHashMap<>();
                    for (Map.Entry<Object, Object> e : byKey.entrySet()) {
                        int key = e.getKey() instanceof Number n ? n.intValue() : Integer.parseInt((String) e.getKey());
                        List<Object> pairs = (List<Object>) e.getValue();
                        List<MicroOp.Record> recs = new ArrayList<>(pairs.size());
                        for (Object po : pairs) {
                            List<Object> pair = (List<Object>) po;
                            recs.add(new MicroOp.Record(((Number) pair.get(0)).longValue(),
                                    ((Number) pair.get(1)).longValue()));
                        }
                        reads.put(key, List.copyOf(recs));
                    }
                    mops.add(new MicroOp.Poll(reads));
                }
            } else {
                throw new IllegalArgumentException("unknown micro-op: " + kind);
            }
        }
        return new OpValue.Txn(mops);
    }
}
