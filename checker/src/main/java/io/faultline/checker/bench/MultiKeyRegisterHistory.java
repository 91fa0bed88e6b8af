package io.faultline.checker.bench;

import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;

import java.util.PriorityQueue;
import java.util.Random;

/**
 * A correct multi-key register under P processes, generated in time order: each process runs one op at a time on a
 * random key (read, write, or compare-and-set when asked), each op takes effect at a random instant inside its
 * interval, and the registers are updated in the order of those instants, so the history is linearizable by
 * construction. An indeterminate write (one in {@code infoEvery}) may or may not take effect and retires its
 * process, which comes back as a new one (as Jepsen does). Ops stream to a sink, so ten million of them need no
 * list of plans: memory is what the sink keeps.
 */
public final class MultiKeyRegisterHistory {
    /** Receives each op with its key, in order of their linearization points. */
    public interface Sink {
        void accept(String key, LinOp<RegisterOp, Object> op);
    }

    /** The next op of one process, planned: its interval and the instant it takes effect. */
    private record Pending(int process, int done, long invoke, long point, long complete) {
    }

    private MultiKeyRegisterHistory() {
    }

    public static void generate(long seed, int processes, int perProcess, int keys, int infoEvery, boolean cas,
                                Sink sink) {
        Random rnd = new Random(seed);
        String[] names = new String[keys];
        for (int k = 0; k < keys; k++) {
            names[k] = "k" + k;
        }
        long[] value = new long[keys];
        java.util.Arrays.fill(value, RegisterModel.EMPTY);
        PriorityQueue<Pending> queue = new PriorityQueue<>((a, b) -> Long.compare(a.point(), b.point()));
        for (int p = 0; p < processes; p++) {
            queue.add(plan(rnd, p, 0, rnd.nextInt(100)));
        }
        long id = 0;
        long nextValue = 1;
        int nextProcess = processes;
        while (!queue.isEmpty()) {
            Pending p = queue.poll();
            int k = rnd.nextInt(keys);
            int kind = rnd.nextInt(cas ? 3 : 2);
            boolean info = false;
            LinOp<RegisterOp, Object> op;
            if (kind == 0) {
                op = new LinOp<>(id++, p.process(), p.invoke(), p.complete(), RegisterOp.READ, value[k]);
            } else if (kind == 1) {
                long v = nextValue++;
                info = infoEvery > 0 && rnd.nextInt(infoEvery) == 0;
                if (!info || rnd.nextBoolean()) {
                    value[k] = v;
                }
                op = new LinOp<>(id++, p.process(), p.invoke(), info ? LinOp.NEVER : p.complete(),
                        new RegisterOp.Write(v), info ? null : "ok");
            } else {
                long expected = rnd.nextBoolean() || value[k] == RegisterModel.EMPTY ? value[k] : value[k] + 1;
                long update = nextValue++;
                boolean swaps = value[k] == expected;
                if (swaps) {
                    value[k] = update;
                }
                op = new LinOp<>(id++, p.process(), p.invoke(), p.complete(), new RegisterOp.Cas(expected, update),
                        swaps);
            }
            sink.accept(names[k], op);
            int process = p.process();
            if (info) {
                process = nextProcess++;
            }
            if (p.done() + 1 < perProcess) {
                queue.add(plan(rnd, process, p.done() + 1, p.complete() + 1 + rnd.nextInt(50)));
            }
        }
    }

    private static Pending plan(Random rnd, int process, int done, long start) {
        long dur = 10 + rnd.nextInt(200);
        return new Pending(process, done, start, start + rnd.nextInt((int) dur), start + dur);
    }
}
