package io.faultline.results;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The final log of each replica of a partition, side by side: read from the data directories a run collects
 * (nodes/&lt;n&gt;/data/…/&lt;topic&gt;-&lt;p&gt;/*.log, Kafka's segment format, which broker-impl writes too), so a reader
 * sees where the replicas' logs diverge, as Jepsen's per-key plots show one history but here per replica. Reads
 * record batches of format v2 itself (no Kafka classes in this module); a compressed batch is shown as its offset
 * range without values. Never throws: a replica whose files cannot be read shows nothing.
 */
final class ReplicaLogs {
    /** One record in a replica's log: its offset, value (null for a control or compressed batch) and leader epoch. */
    record Entry(long offset, String value, int leaderEpoch) {}

    static final int MAX_RECORDS_PER_REPLICA = 200_000;
    private static final int CONTEXT_ROWS = 3, MAX_ROWS = 240;

    private ReplicaLogs() {}

    /** Node → its log of the partition whose directory name is {@code partition}; nodes without it are absent. */
    static Map<String, List<Entry>> read(Path nodesDir, String partition) {
        Map<String, List<Entry>> out = new TreeMap<>();
        if (nodesDir == null || !Files.isDirectory(nodesDir)) return out;
        for (Path node : LogExcerpts.list(nodesDir)) {
            Path dir = find(node.resolve("data"), partition, 3);
            if (dir == null) continue;
            List<Entry> entries = new ArrayList<>();
            for (Path segment : LogExcerpts.list(dir)) {
                if (segment.getFileName().toString().endsWith(".log")) readSegment(segment, entries);
            }
            entries.sort(java.util.Comparator.comparingLong(Entry::offset));
            out.put(node.getFileName().toString(), entries);
        }
        return out;
    }

    /** The workload partition a key's records go to (key k is partition 0 of topic prefix-k), from the nodes' dirs. */
    static String partitionOfKey(Path nodesDir, int key) {
        String suffix = "-" + key + "-0";
        if (nodesDir == null || !Files.isDirectory(nodesDir)) return null;
        for (Path node : LogExcerpts.list(nodesDir)) {
            Path data = node.resolve("data");
            try (Stream<Path> s = Files.isDirectory(data) ? Files.walk(data, 3) : Stream.empty()) {
                var hit = s.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                        .filter(n -> n.endsWith(suffix) && !n.startsWith("__")).findFirst();
                if (hit.isPresent()) return hit.get();
            } catch (IOException | RuntimeException e) {
                // next node
            }
        }
        return null;
    }

    private static Path find(Path dir, String name, int depth) {
        if (!Files.isDirectory(dir) || depth < 0) return null;
        Path direct = dir.resolve(name);
        if (Files.isDirectory(direct)) return direct;
        for (Path child : LogExcerpts.list(dir)) {
            if (!Files.isDirectory(child)) continue;
            Path hit = find(child, name, depth - 1);
            if (hit != null) return hit;
        }
        return null;
    }

    /**
     * Node → the end of its log of the partition (one past the last offset of its last whole batch; 0 when empty), read
     * from batch headers only; nodes without the partition are absent.
     */
    static Map<String, Long> logEnds(Path nodesDir, String partition) {
        Map<String, Long> out = new TreeMap<>();
        if (nodesDir == null || !Files.isDirectory(nodesDir)) return out;
        for (Path node : LogExcerpts.list(nodesDir)) {
            Path dir = find(node.resolve("data"), partition, 3);
            if (dir == null) continue;
            long end = 0;
            for (Path segment : LogExcerpts.list(dir)) {
                if (segment.getFileName().toString().endsWith(".log")) end = Math.max(end, segmentEnd(segment));
            }
            out.put(node.getFileName().toString(), end);
        }
        return out;
    }

    private static long segmentEnd(Path file) {
        ByteBuffer buf;
        try {
            buf = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.BIG_ENDIAN);
        } catch (IOException | OutOfMemoryError e) {
            return 0;
        }
        long end = 0;
        int pos = 0;
        while (pos + 61 <= buf.limit()) {
            long baseOffset = buf.getLong(pos);
            int length = buf.getInt(pos + 8);
            if (length < 49 || pos + 12 + length > buf.limit()) break; // torn tail or preallocated zeros
            end = baseOffset + buf.getInt(pos + 23) + 1;
            pos += 12 + length;
        }
        return end;
    }

    /** Appends the records of one segment file; stops quietly at a torn or unknown batch. */
    static void readSegment(Path file, List<Entry> out) {
        ByteBuffer buf;
        try {
            buf = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.BIG_ENDIAN);
        } catch (IOException | OutOfMemoryError e) {
            return;
        }
        while (buf.remaining() >= 61 && out.size() < MAX_RECORDS_PER_REPLICA) {
            int start = buf.position();
            long baseOffset = buf.getLong(start);
            int length = buf.getInt(start + 8);
            if (length < 49 || start + 12 + length > buf.limit()) return; // torn tail or preallocated zeros
            int epoch = buf.getInt(start + 12);
            byte magic = buf.get(start + 16);
            if (magic != 2) return;
            short attributes = buf.getShort(start + 21);
            int lastOffsetDelta = buf.getInt(start + 23);
            int count = buf.getInt(start + 57);
            boolean control = (attributes & 0x20) != 0;
            if ((attributes & 0x07) != 0 || control) {
                for (long o = baseOffset; o <= baseOffset + lastOffsetDelta; o++) out.add(new Entry(o, null, epoch));
            } else {
                ByteBuffer records = buf.duplicate().position(start + 61).limit(start + 12 + length);
                try {
                    for (int i = 0; i < count; i++) out.add(readRecord(records, baseOffset, epoch));
                } catch (RuntimeException e) {
                    return;
                }
            }
            buf.position(start + 12 + length);
        }
    }

    private static Entry readRecord(ByteBuffer b, long baseOffset, int epoch) {
        readVarint(b); // record length
        b.get(); // attributes
        readVarlong(b); // timestamp delta
        int offsetDelta = readVarint(b);
        int keyLength = readVarint(b);
        if (keyLength > 0) b.position(b.position() + keyLength);
        int valueLength = readVarint(b);
        String value = null;
        if (valueLength >= 0) {
            byte[] v = new byte[valueLength];
            b.get(v);
            value = compact(new String(v, StandardCharsets.UTF_8));
        }
        int headers = readVarint(b);
        for (int h = 0; h < headers; h++) {
            int k = readVarint(b);
            b.position(b.position() + k);
            int v = readVarint(b);
            if (v > 0) b.position(b.position() + v);
        }
        return new Entry(baseOffset + offsetDelta, value, epoch);
    }

    /**
     * A padded value ("v:padding", the nightly's shaped records) as its number and a hash of the whole: replicas are
     * still compared on every byte, and a page shows "v#hash" instead of kilobytes of padding.
     */
    static String compact(String value) {
        int sep = value.indexOf(':');
        return sep < 0 ? value : value.substring(0, sep) + "#" + Integer.toHexString(value.hashCode());
    }

    private static int readVarint(ByteBuffer b) {
        int raw = 0, shift = 0;
        byte x;
        do {
            x = b.get();
            raw |= (x & 0x7f) << shift;
            shift += 7;
            if (shift > 28 && (x & 0x80) != 0) throw new IllegalStateException("varint too long");
        } while ((x & 0x80) != 0);
        return (raw >>> 1) ^ -(raw & 1);
    }

    private static long readVarlong(ByteBuffer b) {
        long raw = 0;
        int shift = 0;
        byte x;
        do {
            x = b.get();
            raw |= (long) (x & 0x7f) << shift;
            shift += 7;
            if (shift > 63 && (x & 0x80) != 0) throw new IllegalStateException("varlong too long");
        } while ((x & 0x80) != 0);
        return (raw >>> 1) ^ -(raw & 1);
    }

    /**
     * Offsets × replicas for one partition: every offset where the replicas disagree (a different value, or one
     * holds a record the other does not) is coloured, with a few rows of context; long agreeing stretches fold
     * into one row. Empty when no replica's log was found.
     */
    static String html(int key, String partition, Map<String, List<Entry>> logs) {
        if (logs.isEmpty()) return "";
        List<String> nodes = new ArrayList<>(logs.keySet());
        Map<String, Map<Long, Entry>> byOffset = new LinkedHashMap<>();
        TreeSet<Long> offsets = new TreeSet<>();
        logs.forEach((n, entries) -> {
            Map<Long, Entry> m = new java.util.HashMap<>();
            for (Entry e : entries) {
                m.put(e.offset(), e);
                offsets.add(e.offset());
            }
            byOffset.put(n, m);
        });
        Map<String, long[]> range = new LinkedHashMap<>(); // each replica's [first offset, log end)
        logs.forEach((n, entries) -> range.put(n, entries.isEmpty() ? new long[]{0, 0}
                : new long[]{entries.get(0).offset(), entries.get(entries.size() - 1).offset() + 1}));
        List<Long> all = new ArrayList<>(offsets);
        TreeSet<Integer> shown = new TreeSet<>();
        int diverging = 0;
        for (int i = 0; i < all.size(); i++) {
            if (!agree(all.get(i), nodes, byOffset, range)) {
                diverging++;
                for (int j = Math.max(0, i - CONTEXT_ROWS); j <= Math.min(all.size() - 1, i + CONTEXT_ROWS); j++) shown.add(j);
            }
        }
        StringBuilder b = new StringBuilder("<h3 id=\"replica-log-").append(key).append("\">key ").append(key)
                .append(" (").append(Html.esc(partition)).append("): ");
        b.append(diverging == 0 ? "the replicas' logs agree" : diverging + " offsets where the replicas' logs differ")
                .append("</h3><p class=\"note\">Log ends: ");
        for (int i = 0; i < nodes.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(Html.esc(nodes.get(i))).append(' ').append(range.get(nodes.get(i))[1]);
        }
        b.append(". Cells show value (leader epoch); rows are coloured where two replicas hold different records at"
                + " one offset, or one has a hole inside its log (a replica that is only shorter is not).</p>");
        if (diverging == 0) return b.toString();
        b.append("<table class=\"replica-log\"><tr><th>offset</th>");
        nodes.forEach(n -> b.append("<th>").append(Html.esc(n)).append("</th>"));
        b.append("</tr>");
        int previous = -2, rows = 0;
        for (int i : shown) {
            if (rows++ >= MAX_ROWS) {
                b.append("<tr class=\"gap\"><td colspan=\"").append(nodes.size() + 1).append("\">… more rows not shown</td></tr>");
                break;
            }
            if (previous >= 0 && i != previous + 1) {
                b.append("<tr class=\"gap\"><td colspan=\"").append(nodes.size() + 1).append("\">… agreeing offsets folded</td></tr>");
            }
            long o = all.get(i);
            boolean differs = !agree(o, nodes, byOffset, range);
            b.append("<tr").append(differs ? " class=\"diverge\"" : "").append("><td class=\"num\">").append(o).append("</td>");
            for (String n : nodes) {
                Entry e = byOffset.get(n).get(o);
                b.append("<td>").append(e == null ? "<span class=\"zero\">—</span>"
                        : Html.esc((e.value() == null ? "(no value)" : e.value()) + " (" + e.leaderEpoch() + ")")).append("</td>");
            }
            b.append("</tr>");
            previous = i;
        }
        return b.append("</table>").toString();
    }

    /** Whether every replica whose log covers the offset holds the same record there. */
    private static boolean agree(long offset, List<String> nodes, Map<String, Map<Long, Entry>> byOffset,
                                 Map<String, long[]> range) {
        String first = null;
        for (String n : nodes) {
            long[] r = range.get(n);
            if (offset < r[0] || offset >= r[1]) continue; // shorter or trimmed: not a divergence
            Entry e = byOffset.get(n).get(offset);
            String v = e == null ? "\u0000hole" : String.valueOf(e.value());
            if (first == null) first = v;
            else if (!Objects.equals(first, v)) return false;
        }
        return true;
    }

}
