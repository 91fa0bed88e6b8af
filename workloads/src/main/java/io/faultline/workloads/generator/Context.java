package io.faultline.workloads.generator;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What a generator may look at: the current time (ns since the test started), how many worker threads exist and
 * which are free. Processes map to threads as {@code process mod threadCount}, matching the recorder's retirement
 * scheme (a retired process p is replaced by p + threadCount).
 */
public record Context(long time, int threadCount, List<Integer> freeThreads) {
    public Context {
        freeThreads = List.copyOf(freeThreads);
    }

    public static Context allFree(long time, int threadCount) {
        List<Integer> all = new ArrayList<>(threadCount);
        for (int t = 0; t < threadCount; t++) {
            all.add(t);
        }
        return new Context(time, threadCount, all);
    }

    /** The lowest free thread, or -1 if none. */
    public int anyFreeThread() {
        return freeThreads.isEmpty() ? -1 : freeThreads.get(0);
    }

    public boolean isFree(int thread) {
        return freeThreads.contains(thread);
    }

    public boolean allThreadsFree() {
        return freeThreads.size() == threadCount;
    }

    public int threadOf(int process) {
        return process < 0 ? -1 : process % threadCount;
    }

    public Context atTime(long newTime) {
        return new Context(newTime, threadCount, freeThreads);
    }

    /** The same moment, seen by a generator that may only use {@code threads}. */
    public Context restrictedTo(Collection<Integer> threads) {
        List<Integer> free = new ArrayList<>();
        for (int t : freeThreads) {
            if (threads.contains(t)) {
                free.add(t);
            }
        }
        return new Context(time, threadCount, free);
    }

    public Context withoutFree(int thread) {
        List<Integer> free = new ArrayList<>(freeThreads);
        free.remove(Integer.valueOf(thread));
        return new Context(time, threadCount, free);
    }
}
