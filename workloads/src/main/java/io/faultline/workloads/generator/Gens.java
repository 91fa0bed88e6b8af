package io.faultline.workloads.generator;

import io.faultline.checker.history.Op;
import io.faultline.checker.history.OpValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Generator building blocks. Each is an immutable record; composition is by wrapping. Base generators emit on the
 * lowest free thread at the context's time; wrappers restrict threads, shift times, or end the stream.
 */
public final class Gens {
    private Gens() {
    }

    /** Makes one op from a random draw. */
    @FunctionalInterface
    public interface OpMaker {
        Invocation make(Rng rng);
    }

    /** Builds an invocation template; thread and time are filled in when emitted. */
    public static Invocation op(String f, OpValue value) {
        return new Invocation(-1, 0, f, value);
    }

    /** Emits {@code template} once. */
    public static Gen once(Invocation template) {
        return new Limit(1, new Repeat(template));
    }

    /** Emits {@code template} forever. */
    public static Gen repeat(Invocation template) {
        return new Repeat(template);
    }

    /** Emits {@code maker}'s ops forever, each from its own draw of a seeded stream. */
    public static Gen random(long seed, OpMaker maker) {
        return new RandomOps(Rng.seeded(seed), maker);
    }

    /** At most {@code n} ops from {@code gen}. */
    public static Gen limit(int n, Gen gen) {
        return new Limit(n, gen);
    }

    /** {@code gen} until {@code nanos} after its first op; nothing scheduled after that point is emitted. */
    public static Gen timeLimit(long nanos, Gen gen) {
        return new TimeLimit(nanos, -1, gen);
    }

    /** Rate limiting: ops at least {@code intervalNanos} apart. */
    public static Gen delay(long intervalNanos, Gen gen) {
        return new Spacing(intervalNanos, false, Rng.seeded(0), -1, gen);
    }

    /**
     * Ops spaced by a uniform random interval in [0, 2·mean): on average one per {@code meanNanos}. The spacing runs
     * on its own schedule, not from the moment an op actually went out: when the dispatcher is asked late (a busy
     * machine wakes it 10-50 ms after a 4 ms gap) or no thread was free, the ops that fell due meanwhile go out at
     * once, up to {@link #STAGGER_CATCH_UP_NANOS} of backlog. Without this, every late wake-up lowered the rate for
     * good, and a loaded 2-core machine ran the queue workload at a fifth of its configured rate with idle workers.
     */
    public static Gen stagger(long meanNanos, long seed, Gen gen) {
        return new Spacing(meanNanos, true, Rng.seeded(seed), -1, gen);
    }

    /** The most schedule a stagger makes up after falling behind (e.g. while every worker was stuck in a fault). */
    public static final long STAGGER_CATCH_UP_NANOS = 1_000_000_000L;

    /** Each op comes from one of {@code gens}, chosen uniformly at random; exhausted ones drop out. */
    public static Gen mix(long seed, Gen... gens) {
        return new Mix(List.of(gens), Rng.seeded(seed));
    }

    /**
     * Several generators at once on the same threads (Jepsen's {@code any}): each step asks all of them and emits
     * the soonest op offered (ties go to the one after the last that emitted); done when all are. A completion goes back to
     * the generator whose op it completes, so each sees only its own history.
     */
    public static Gen any(Gen... gens) {
        return new Any(List.of(gens), Map.of(), 0);
    }

    /** One after another, without waiting in between. */
    public static Gen seq(Gen... gens) {
        return new Sequence(List.of(gens), 0, false);
    }

    /** One after another; each phase starts only when every op of the previous one has completed. */
    public static Gen phases(Gen... gens) {
        return new Sequence(List.of(gens), 0, true);
    }

    /** {@code gen} may only use the given threads. */
    public static Gen onThreads(Collection<Integer> threads, Gen gen) {
        return new OnThreads(Set.copyOf(threads), gen);
    }

    /** {@code gen} runs with at most {@code n} concurrent ops (threads 0..n-1). */
    public static Gen concurrency(int n, Gen gen) {
        List<Integer> threads = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            threads.add(t);
        }
        return onThreads(threads, gen);
    }

    /** Every thread runs its own copy of {@code gen}. */
    public static Gen eachThread(Gen gen) {
        return new EachThread(gen, Map.of());
    }

    /**
     * {@code template} again until one completes ok, at most {@code attempts} times, each try {@code pauseNanos} after
     * the last one ended: an op after the heal that a passing error (a leader still moving, a stale client) may refuse
     * once, where only a refusal every time says something about the cluster. Only for ops that are safe to repeat.
     */
    public static Gen untilOk(Invocation template, int attempts, long pauseNanos) {
        if (attempts < 1) throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
        return firstOk(java.util.Collections.nCopies(attempts, template), pauseNanos);
    }

    /**
     * {@code tries} one after another until one completes ok, each {@code pauseNanos} after the last one ended: for an
     * op that is not safe to repeat as it is (a creation a retry would find done), each try its own.
     */
    public static Gen firstOk(List<Invocation> tries, long pauseNanos) {
        if (tries.isEmpty()) throw new IllegalArgumentException("no op to try");
        return new FirstOk(List.copyOf(tries), 0, pauseNanos, false, Long.MIN_VALUE);
    }

    // ---- implementations --------------------------------------------------------------------------------

    /** @param next the index of the next try; running: its last try is still running; notBefore: the next try's earliest time */
    record FirstOk(List<Invocation> tries, int next, long pauseNanos, boolean running, long notBefore) implements Gen {
        public Step next(Context ctx) {
            if (running) return Step.PENDING;
            if (next >= tries.size()) return Step.DONE;
            int t = ctx.anyFreeThread();
            if (t < 0) return Step.PENDING;
            return Step.emit(tries.get(next).withThread(t).withTime(Math.max(ctx.time(), notBefore)),
                    new FirstOk(tries, next + 1, pauseNanos, true, notBefore));
        }

        public Gen update(Context ctx, Op event) {
            if (!running || !event.f().equals(tries.get(next - 1).f())) return this;
            int after = event.type() == io.faultline.checker.history.OpType.OK ? tries.size() : next;
            return new FirstOk(tries, after, pauseNanos, false, ctx.time() + pauseNanos);
        }
    }

    record Repeat(Invocation template) implements Gen {
        public Step next(Context ctx) {
            int t = ctx.anyFreeThread();
            return t < 0 ? Step.PENDING : Step.emit(template.withThread(t).withTime(ctx.time()), this);
        }
    }

    record RandomOps(Rng rng, OpMaker maker) implements Gen {
        public Step next(Context ctx) {
            int t = ctx.anyFreeThread();
            if (t < 0) {
                return Step.PENDING;
            }
            Invocation op = maker.make(rng);
            return Step.emit(op.withThread(t).withTime(ctx.time()), new RandomOps(rng.advance(), maker));
        }
    }

    record Limit(int remaining, Gen gen) implements Gen {
        public Step next(Context ctx) {
            if (remaining <= 0) {
                return Step.DONE;
            }
            Step s = gen.next(ctx);
            return s instanceof Step.Emit e ? Step.emit(e.op(), new Limit(remaining - 1, e.next())) : s;
        }

        public Gen update(Context ctx, Op event) {
            return new Limit(remaining, gen.update(ctx, event));
        }
    }

    record TimeLimit(long limit, long deadline, Gen gen) implements Gen {
        public Step next(Context ctx) {
            long end = deadline >= 0 ? deadline : ctx.time() + limit;
            if (ctx.time() >= end) {
                return Step.DONE;
            }
            Step s = gen.next(ctx);
            if (s instanceof Step.Emit e) {
                return e.op().time() >= end ? Step.DONE : Step.emit(e.op(), new TimeLimit(limit, end, e.next()));
            }
            return s;
        }

        public Gen update(Context ctx, Op event) {
            return new TimeLimit(limit, deadline, gen.update(ctx, event));
        }
    }

    /** Shifts op times so consecutive ops are spaced (fixed, or random with the given mean). */
    record Spacing(long interval, boolean random, Rng rng, long nextTime, Gen gen) implements Gen {
        public Step next(Context ctx) {
            Step s = gen.next(ctx);
            if (!(s instanceof Step.Emit e)) {
                return s;
            }
            long gap = random ? (long) (rng.unit() * 2 * interval) : interval;
            if (!random) { // delay: at least interval apart, always
                long at = Math.max(e.op().time(), nextTime);
                return Step.emit(e.op().withTime(at), new Spacing(interval, false, rng, at + gap, e.next()));
            }
            // stagger: the op is due at nextTime; a late one goes out now, the next stays on schedule (bounded lag)
            long due = nextTime < 0 ? e.op().time() : Math.max(nextTime, e.op().time() - STAGGER_CATCH_UP_NANOS);
            long at = Math.max(e.op().time(), due);
            return Step.emit(e.op().withTime(at), new Spacing(interval, true, rng.advance(), due + gap, e.next()));
        }

        public Gen update(Context ctx, Op event) {
            return new Spacing(interval, random, rng, nextTime, gen.update(ctx, event));
        }
    }

    record Mix(List<Gen> gens, Rng rng) implements Gen {
        public Step next(Context ctx) {
            if (gens.isEmpty()) {
                return Step.DONE;
            }
            int i = rng.below(gens.size());
            Step s = gens.get(i).next(ctx);
            if (s instanceof Step.Done) {
                List<Gen> rest = new ArrayList<>(gens);
                rest.remove(i);
                return new Mix(rest, rng.advance()).next(ctx);
            }
            if (s instanceof Step.Emit e) {
                List<Gen> after = new ArrayList<>(gens);
                after.set(i, e.next());
                return Step.emit(e.op(), new Mix(after, rng.advance()));
            }
            return s;
        }

        public Gen update(Context ctx, Op event) {
            List<Gen> after = new ArrayList<>(gens.size());
            for (Gen g : gens) {
                after.add(g.update(ctx, event));
            }
            return new Mix(after, rng);
        }
    }

    record Any(List<Gen> gens, Map<Integer, Integer> ownerOfThread, int start) implements Gen {
        public Step next(Context ctx) {
            boolean allDone = true;
            Step.Emit soonest = null;
            int from = -1;
            for (int k = 0; k < gens.size(); k++) {
                int i = (start + k) % gens.size();
                Step s = gens.get(i).next(ctx);
                if (s instanceof Step.Emit e) {
                    allDone = false;
                    if (soonest == null || e.op().time() < soonest.op().time()) {
                        soonest = e;
                        from = i;
                    }
                } else if (s instanceof Step.Pending) {
                    allDone = false;
                }
            }
            if (soonest == null) {
                return allDone ? Step.DONE : Step.PENDING;
            }
            List<Gen> after = new ArrayList<>(gens);
            after.set(from, soonest.next());
            Map<Integer, Integer> owners = new HashMap<>(ownerOfThread);
            owners.put(soonest.op().thread(), from);
            return Step.emit(soonest.op(), new Any(after, Map.copyOf(owners), (from + 1) % gens.size()));
        }

        public Gen update(Context ctx, Op event) {
            Integer owner = ownerOfThread.get(ctx.threadOf(event.process()));
            if (owner == null) {
                return this;
            }
            List<Gen> after = new ArrayList<>(gens);
            after.set(owner, gens.get(owner).update(ctx, event));
            return new Any(after, ownerOfThread, start);
        }
    }

    record Sequence(List<Gen> gens, int current, boolean barrier) implements Gen {
        public Step next(Context ctx) {
            for (int i = current; i < gens.size(); i++) {
                Step s = gens.get(i).next(ctx);
                if (s instanceof Step.Emit e) {
                    List<Gen> after = new ArrayList<>(gens);
                    after.set(i, e.next());
                    return Step.emit(e.op(), new Sequence(after, i, barrier));
                }
                if (s instanceof Step.Pending) {
                    return s;
                }
                if (barrier && !ctx.allThreadsFree()) {
                    return Step.PENDING; // phase i is over, but its last ops are still running
                }
            }
            return Step.DONE;
        }

        public Gen update(Context ctx, Op event) {
            if (current >= gens.size()) {
                return this;
            }
            List<Gen> after = new ArrayList<>(gens);
            after.set(current, gens.get(current).update(ctx, event));
            return new Sequence(after, current, barrier);
        }
    }

    record OnThreads(Set<Integer> threads, Gen gen) implements Gen {
        public Step next(Context ctx) {
            Step s = gen.next(ctx.restrictedTo(threads));
            return s instanceof Step.Emit e ? Step.emit(e.op(), new OnThreads(threads, e.next())) : s;
        }

        public Gen update(Context ctx, Op event) {
            return threads.contains(ctx.threadOf(event.process()))
                    ? new OnThreads(threads, gen.update(ctx, event)) : this;
        }
    }

    record EachThread(Gen template, Map<Integer, Gen> perThread) implements Gen {
        private Gen of(int thread) {
            return perThread.getOrDefault(thread, template);
        }

        public Step next(Context ctx) {
            for (int t : new TreeSet<>(ctx.freeThreads())) {
                Step s = of(t).next(ctx.restrictedTo(List.of(t)));
                if (s instanceof Step.Emit e) {
                    Map<Integer, Gen> after = new HashMap<>(perThread);
                    after.put(t, e.next());
                    return Step.emit(e.op(), new EachThread(template, Map.copyOf(after)));
                }
            }
            for (int t = 0; t < ctx.threadCount(); t++) {
                if (!(of(t).next(ctx.restrictedTo(List.of(t))) instanceof Step.Done)) {
                    return Step.PENDING;
                }
            }
            return Step.DONE;
        }

        public Gen update(Context ctx, Op event) {
            int t = ctx.threadOf(event.process());
            if (t < 0) {
                return this;
            }
            Map<Integer, Gen> after = new HashMap<>(perThread);
            after.put(t, of(t).update(ctx, event));
            return new EachThread(template, Map.copyOf(after));
        }
    }
}
