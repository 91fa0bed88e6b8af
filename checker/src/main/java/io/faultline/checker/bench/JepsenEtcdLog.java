package io.faultline.checker.bench;

import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Jepsen etcd log as Porcupine's test suite ships them ({@code test_data/jepsen/etcd_NNN.log}) into
 * register ops, the way Porcupine's own parser reads them: a line's number is its time; an {@code :ok} read
 * returns a value or nil (empty), a {@code :fail} cas returned false, a timed-out read returns unobserved, and an
 * op still open at the end (its {@code :info} line matches nothing) is indeterminate. Other lines are ignored.
 */
public final class JepsenEtcdLog {
    private static final String P = "^INFO\\s+jepsen\\.util\\s+-\\s+(\\d+)\\s+";
    private static final Pattern INVOKE_READ = Pattern.compile(P + ":invoke\\s+:read\\s+nil$");
    private static final Pattern INVOKE_WRITE = Pattern.compile(P + ":invoke\\s+:write\\s+(\\d+)$");
    private static final Pattern INVOKE_CAS = Pattern.compile(P + ":invoke\\s+:cas\\s+\\[(\\d+)\\s+(\\d+)\\]$");
    private static final Pattern OK_READ = Pattern.compile(P + ":ok\\s+:read\\s+(nil|\\d+)$");
    private static final Pattern OK_WRITE = Pattern.compile(P + ":ok\\s+:write\\s+(\\d+)$");
    private static final Pattern DONE_CAS = Pattern.compile(P + ":(ok|fail)\\s+:cas\\s+\\[(\\d+)\\s+(\\d+)\\]$");
    private static final Pattern TIMED_OUT_READ = Pattern.compile(P + ":fail\\s+:read\\s+:timed-out$");

    private JepsenEtcdLog() {
    }

    private record Open(long id, long invoke, RegisterOp input) {
    }

    public static List<LinOp<RegisterOp, Object>> read(Path log) throws IOException {
        List<LinOp<RegisterOp, Object>> ops = new ArrayList<>();
        Map<Integer, Open> open = new HashMap<>();
        long time = 0;
        long id = 0;
        for (String line : Files.readAllLines(log)) {
            time++;
            Matcher m;
            if ((m = INVOKE_READ.matcher(line)).matches()) {
                open.put(Integer.parseInt(m.group(1)), new Open(id++, time, RegisterOp.READ));
            } else if ((m = INVOKE_WRITE.matcher(line)).matches()) {
                open.put(Integer.parseInt(m.group(1)), new Open(id++, time, new RegisterOp.Write(Long.parseLong(m.group(2)))));
            } else if ((m = INVOKE_CAS.matcher(line)).matches()) {
                open.put(Integer.parseInt(m.group(1)), new Open(id++, time,
                        new RegisterOp.Cas(Long.parseLong(m.group(2)), Long.parseLong(m.group(3)))));
            } else if ((m = OK_READ.matcher(line)).matches()) {
                Object value = m.group(2).equals("nil") ? RegisterModel.EMPTY : (Object) Long.parseLong(m.group(2));
                complete(ops, open.remove(Integer.parseInt(m.group(1))), m.group(1), time, value);
            } else if ((m = OK_WRITE.matcher(line)).matches()) {
                complete(ops, open.remove(Integer.parseInt(m.group(1))), m.group(1), time, "ok");
            } else if ((m = DONE_CAS.matcher(line)).matches()) {
                complete(ops, open.remove(Integer.parseInt(m.group(1))), m.group(1), time, m.group(2).equals("ok"));
            } else if ((m = TIMED_OUT_READ.matcher(line)).matches()) {
                complete(ops, open.remove(Integer.parseInt(m.group(1))), m.group(1), time, null);
            }
        }
        for (Map.Entry<Integer, Open> e : open.entrySet()) {
            Open o = e.getValue();
            ops.add(new LinOp<>(o.id(), e.getKey(), o.invoke(), LinOp.NEVER, o.input(), null));
        }
        return ops;
    }

    private static void complete(List<LinOp<RegisterOp, Object>> ops, Open o, String process, long time, Object out) {
        if (o != null) { // a completion without its invocation is ignored
            ops.add(new LinOp<>(o.id(), Integer.parseInt(process), o.invoke(), time, o.input(), out));
        }
    }
}
