package io.faultline.checker.history;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes a history as EDN in Jepsen's shape, one op map per line, so elle-cli and other Jepsen tools can read it:
 * <pre>
 * {:index 4, :type :ok, :process 1, :time 1200, :f :send, :value [[:send 3 [12 7]]]}
 * {:index 5, :type :ok, :process 0, :time 1300, :f :poll, :value [[:poll {3 [[12 7]]}]]}
 * {:index 6, :type :invoke, :process 2, :time 1400, :f :assign, :value [1 2], :seek-to-beginning? true}
 * </pre>
 * The nemesis process is written as {@code :nemesis}.
 */
public final class EdnWriter {
    private EdnWriter() {
    }

    public static void write(List<Op> ops, Path file) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(ops, w);
        }
    }

    public static void write(List<Op> ops, Writer w) throws IOException {
        StringBuilder sb = new StringBuilder(256);
        for (Op op : ops) {
            sb.setLength(0);
            append(sb, op);
            sb.append('\n');
            w.write(sb.toString());
        }
        w.flush();
    }

    public static String toEdn(Op op) {
        StringBuilder sb = new StringBuilder(128);
        append(sb, op);
        return sb.toString();
    }

    static void append(StringBuilder sb, Op op) {
        sb.append("{:index ").append(op.index());
        sb.append(", :type :").append(op.type().wireName());
        sb.append(", :process ");
        if (op.process() == Op.NEMESIS) {
            sb.append(":nemesis");
        } else {
            sb.append(op.process());
        }
        sb.append(", :time ").append(op.time());
        sb.append(", :f :").append(op.f());
        sb.append(", :value ");
        appendValue(sb, op.value());
        if (op.value() instanceof OpValue.Keys k && k.seekToEnd()) {
            sb.append(", :seek-to-end? true");
        }
        if (op.value() instanceof OpValue.Keys k && k.seekToBeginning()) {
            sb.append(", :seek-to-beginning? true");
        }
        if (op.value() instanceof OpValue.Keys k && k.group() != null) {
            sb.append(", :group ");
            appendString(sb, k.group());
        }
        if (op.error() != null) {
            sb.append(", :error ");
            appendString(sb, op.error());
        }
        sb.append('}');
    }

    private static void appendValue(StringBuilder sb, OpValue value) {
        if (value instanceof OpValue.None) {
            sb.append("nil");
        } else if (value instanceof OpValue.Text t) {
            appendString(sb, t.text());
        } else if (value instanceof OpValue.Keys k) {
            sb.append('[');
            for (int i = 0; i < k.keys().size(); i++) {
                if (i > 0) {
                    sb.append(' ');
                }
                sb.append(k.keys().get(i));
            }
            sb.append(']');
        } else if (value instanceof OpValue.Txn t) {
            sb.append('[');
            boolean first = true;
            for (MicroOp m : t.mops()) {
                if (!first) {
                    sb.append(' ');
                }
                first = false;
                appendMop(sb, m);
            }
            sb.append(']');
        }
    }

    private static void appendMop(StringBuilder sb, MicroOp m) {
        if (m instanceof MicroOp.Send s) {
            sb.append("[:send ").append(s.key()).append(' ');
            if (s.offset() == null) {
                sb.append(s.value());
            } else {
                sb.append('[').append(s.offset()).append(' ').append(s.value()).append(']');
            }
            sb.append(']');
        } else if (m instanceof MicroOp.Poll p) {
            if (p.reads() == null) {
                sb.append("[:poll]");
                return;
            }
            sb.append("[:poll {");
            boolean firstKey = true;
            for (Map.Entry<Integer, List<MicroOp.Record>> e : p.reads().entrySet()) {
                if (!firstKey) {
                    sb.append(", ");
                }
                firstKey = false;
                sb.append(e.getKey()).append(" [");
                boolean firstRec = true;
                for (MicroOp.Record r : e.getValue()) {
                    if (!firstRec) {
                        sb.append(' ');
                    }
                    firstRec = false;
                    sb.append('[').append(r.offset()).append(' ').append(r.value()).append(']');
                }
                sb.append(']');
            }
            sb.append("}]");
        }
    }

    private static void appendString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c);
            }
        }
        sb.append('"');
    }
}
