package io.faultline.docker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs one action per item (a node, mostly) on a thread of its own and waits for all of them. Per-node work is
 * Docker calls and exec'd tools that wait on the engine, not CPU: a parallel stream would run only as many at once as
 * the common pool has cores (two on a 2-core machine), so collecting or healing five nodes took three rounds.
 */
public final class Concurrently {
    private Concurrently() {}

    /**
     * Runs {@code action} on every item at once and returns when all have ended. Every item is attempted; the first
     * exception (in item order) is rethrown afterwards, the others are attached to it as suppressed.
     */
    public static <T> void forEach(Collection<T> items, String threadName, Consumer<? super T> action) {
        map(items, threadName, item -> {
            action.accept(item);
            return null;
        });
    }

    /** {@link #forEach} with a result per item, in item order. */
    public static <T, R> List<R> map(Collection<T> items, String threadName, Function<? super T, R> action) {
        List<T> list = List.copyOf(items);
        if (list.size() == 1) return java.util.Collections.singletonList(action.apply(list.get(0)));
        List<R> results = new ArrayList<>(java.util.Collections.nCopies(list.size(), null));
        Throwable[] failures = new Throwable[list.size()];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    results.set(index, action.apply(list.get(index)));
                } catch (Throwable e) {
                    failures[index] = e;
                }
            }, threadName + "-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        boolean interrupted = false;
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    // the per-item work is bounded by its own timeouts; waiting it out keeps "all ended" true
                    interrupted = true;
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        Throwable first = null;
        for (Throwable f : failures) {
            if (f == null) continue;
            if (first == null) first = f;
            else first.addSuppressed(f);
        }
        if (first instanceof RuntimeException r) throw r;
        if (first instanceof Error e) throw e;
        if (first != null) throw new IllegalStateException(first);
        return results;
    }
}
