package io.faultline.workloads.generator;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpType;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A deterministic, single-threaded discrete-event interpreter for testing generators: every op takes
 * {@code latency} ns and completes with the type chosen by {@code outcome}. Records what was dispatched and when.
 */
final class GenSim {
    record Dispatched(Invocation op, long at, long completedAt, int process) {
    }

    private record InFlight(int thread, long completeAt, Invocation op, int process) {
    }

    static List<Dispatched> run(Gen gen, int threads, int maxOps, long latency) {
        return run(gen, threads, maxOps, latency, inv -> OpType.OK);
    }

    static List<Dispatched> run(Gen gen, int threads, int maxOps, long latency, Function<Invocation, OpType> outcome) {
        long now = 0;
        long index = 0;
        int[] process = new int[threads];
        for (int t = 0; t < threads; t++) {
            process[t] = t;
        }
        TreeSet<Integer> free = new TreeSet<>();
        for (int t = 0; t < threads; t++) {
            free.add(t);
        }
        List<InFlight> inFlight = new ArrayList<>();
        List<Dispatched> out = new ArrayList<>();
        for (int guard = 0; guard < maxOps * 20 + 1000; guard++) {
            // complete everything due
            inFlight.sort((a, b) -> Long.compare(a.completeAt(), b.completeAt()));
            while (!inFlight.isEmpty() && inFlight.get(0).completeAt() <= now) {
                InFlight f = inFlight.remove(0);
                OpType type = outcome.apply(f.op());
                Op done = new Op(index++, type, f.process(), f.completeAt(), f.op().f(), f.op().value(), null);
                if (type == OpType.INFO) {
                    process[f.thread()] += threads;
                }
                free.add(f.thread());
                gen = gen.update(new Context(now, threads, new ArrayList<>(free)), done);
            }
            if (out.size() >= maxOps) {
                return out;
            }
            Context ctx = new Context(now, threads, new ArrayList<>(free));
            Step s = free.isEmpty() ? Step.PENDING : gen.next(ctx);
            long nextCompletion = inFlight.isEmpty() ? Long.MAX_VALUE
                    : inFlight.stream().mapToLong(InFlight::completeAt).min().getAsLong();
            if (s instanceof Step.Emit e) {
                if (e.op().time() > now) {
                    now = Math.min(e.op().time(), nextCompletion);
                    continue;
                }
                int t = e.op().thread();
                if (!free.remove(t)) {
                    throw new AssertionError("emitted for busy thread " + t);
                }
                gen = e.next();
                inFlight.add(new InFlight(t, now + latency, e.op(), process[t]));
                out.add(new Dispatched(e.op(), now, now + latency, process[t]));
                index++;
            } else if (nextCompletion == Long.MAX_VALUE) {
                if (s instanceof Step.Pending) {
                    now += 1_000_000; // time-based generators may become ready
                    if (now > 1_000_000_000_000L) {
                        return out;
                    }
                    continue;
                }
                return out; // done and idle
            } else {
                now = nextCompletion;
            }
        }
        return out;
    }
}
