package io.faultline.docker.sut;

import io.faultline.docker.NodeAddress;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The placeholders of a {@link BrokerDescriptor}'s configuration templates and environment values. A placeholder is
 * {@code ${NAME}} or {@code ${NAME:ARGUMENT}}; {@code $${} is a literal {@code ${}; anything else is copied as it is.
 * <ul>
 *   <li>{@code node.id}, {@code node.name}, {@code node.ip}: this node (n3 is id 3)</li>
 *   <li>{@code port}: the client port; {@code cluster.id}: one random id per cluster; {@code cluster.size}</li>
 *   <li>{@code jvm.options}: heap and JVM flags the run chose</li>
 *   <li>{@code broker.properties}: the run's broker settings (--rf, --min-isr, --broker-prop, ...) as Kafka
 *       {@code key=value} lines</li>
 *   <li>{@code quorum.member:IN|OUT}: IN on the first quorum.size nodes, OUT on the others</li>
 *   <li>{@code quorum:PATTERN}, {@code non.quorum:PATTERN} and {@code nodes:PATTERN}: PATTERN once per quorum
 *       member (the nodes outside the quorum, every node), joined by commas, with {@code {id}}, {@code {name}} and
 *       {@code {ip}} replaced (and placeholders in it expanded); empty when there is no such node</li>
 *   <li>{@code quorum.lines:PATTERN}, {@code nodes.lines:PATTERN}: the same, one line each (e.g. ZooKeeper's
 *       {@code server.N=} lines)</li>
 * </ul>
 */
public final class NodeTemplate {
    private NodeTemplate() {}

    static final List<String> PLACEHOLDERS = List.of("node.id", "node.name", "node.ip", "port", "cluster.id",
            "cluster.size", "jvm.options", "broker.properties", "quorum.member:IN|OUT", "quorum:PATTERN",
            "non.quorum:PATTERN", "nodes:PATTERN", "quorum.lines:PATTERN", "nodes.lines:PATTERN");

    /** What a template is rendered for: one node of a cluster, with the run's settings. */
    public record Values(NodeAddress self, List<NodeAddress> all, int port, int quorumSize, String clusterId,
                         KafkaSettings settings, Map<String, String> brokerProperties) {
        public Values {
            all = List.copyOf(all);
            brokerProperties = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(brokerProperties));
        }

        /** The run's broker settings as they are: {@code ${broker.properties}} writes every one. */
        public Values(NodeAddress self, List<NodeAddress> all, int port, int quorumSize, String clusterId, KafkaSettings settings) {
            this(self, all, port, quorumSize, clusterId, settings, settings.brokerProperties(all.size()));
        }

        boolean inQuorum(NodeAddress a) {
            return a.index() <= quorumSize;
        }
    }

    /** The text with every placeholder replaced; an unknown or unclosed one is a one-line IllegalArgumentException. */
    public static String render(String template, Values v) {
        var out = new StringBuilder(template.length() + 256);
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf("${", i);
            if (open < 0) {
                out.append(template, i, template.length());
                break;
            }
            if (open > i && template.charAt(open - 1) == '$') { // $${ is a literal ${ (shell variables in a script)
                out.append(template, i, open - 1).append("${");
                i = open + 2;
                continue;
            }
            out.append(template, i, open);
            int close = matchingBrace(template, open + 1);
            if (close < 0) throw new IllegalArgumentException("unclosed placeholder at line " + lineOf(template, open)
                    + ": " + firstLine(template.substring(open)));
            out.append(expand(template.substring(open + 2, close), v, lineOf(template, open)));
            i = close + 1;
        }
        return out.toString();
    }

    /** The index of the '}' closing the '{' at {@code open}, counting nested braces ({id} inside a pattern). */
    private static int matchingBrace(String s, int open) {
        int depth = 0;
        for (int j = open; j < s.length(); j++) {
            char c = s.charAt(j);
            if (c == '\n') return -1;
            if (c == '{') depth++;
            else if (c == '}' && --depth == 0) return j;
        }
        return -1;
    }

    private static String expand(String body, Values v, int line) {
        int colon = body.indexOf(':');
        String name = colon < 0 ? body : body.substring(0, colon);
        String arg = colon < 0 ? null : body.substring(colon + 1);
        String value = switch (name) {
            case "node.id" -> noArg(name, arg, Integer.toString(v.self().index()));
            case "node.name" -> noArg(name, arg, v.self().name());
            case "node.ip" -> noArg(name, arg, v.self().ip());
            case "port" -> noArg(name, arg, Integer.toString(v.port()));
            case "cluster.id" -> noArg(name, arg, v.clusterId());
            case "cluster.size" -> noArg(name, arg, Integer.toString(v.all().size()));
            case "jvm.options" -> noArg(name, arg, v.settings().jvmOptions());
            case "broker.properties" -> noArg(name, arg, v.brokerProperties().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n")));
            case "quorum.member" -> {
                if (arg == null || !arg.contains("|")) yield null;
                int bar = arg.indexOf('|');
                yield render(v.inQuorum(v.self()) ? arg.substring(0, bar) : arg.substring(bar + 1), v);
            }
            case "quorum" -> arg == null ? null : render(each(v.all().stream().filter(v::inQuorum).toList(), arg, ","), v);
            case "non.quorum" -> arg == null ? null : render(each(v.all().stream().filter(a -> !v.inQuorum(a)).toList(), arg, ","), v);
            case "nodes" -> arg == null ? null : render(each(v.all(), arg, ","), v);
            case "quorum.lines" -> arg == null ? null : render(each(v.all().stream().filter(v::inQuorum).toList(), arg, "\n"), v);
            case "nodes.lines" -> arg == null ? null : render(each(v.all(), arg, "\n"), v);
            default -> throw new IllegalArgumentException("unknown placeholder ${" + body + "} at line " + line
                    + " (known: " + String.join(", ", PLACEHOLDERS) + ")");
        };
        if (value == null) throw new IllegalArgumentException("placeholder ${" + body + "} at line " + line
                + " needs its argument: ${" + PLACEHOLDERS.stream().filter(p -> p.startsWith(name + ":")).findFirst().orElse(name) + "}");
        return value;
    }

    private static String noArg(String name, String arg, String value) {
        if (arg != null) throw new IllegalArgumentException("placeholder ${" + name + "} takes no argument, got ':" + arg + "'");
        return value;
    }

    private static String each(List<NodeAddress> nodes, String pattern, String separator) {
        return nodes.stream().map(a -> pattern.replace("{id}", Integer.toString(a.index())).replace("{name}", a.name())
                .replace("{ip}", a.ip())).collect(Collectors.joining(separator));
    }

    private static int lineOf(String s, int index) {
        int line = 1;
        for (int j = 0; j < index; j++) if (s.charAt(j) == '\n') line++;
        return line;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
