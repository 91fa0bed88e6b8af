package io.faultline.broker.common;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fatal-error policy: anything escaping a broker thread (an {@link Error} such as OutOfMemoryError, or an
 * exception that a loop meant never to end let through) halts the process with one clear last line, so that a
 * supervisor restarts a broker instead of keeping a zombie that listens but no longer serves. The launcher adds
 * {@code -XX:+ExitOnOutOfMemoryError} for the cases where even this handler cannot run.
 *
 * <p>{@link Runtime#halt} rather than exit: shutdown hooks could block on the very threads that failed, and an
 * unclean stop is what the log's recovery is built for. Tests inject the exit action to observe it.
 *
 * <p>As the JVM's default handler ({@link #uncaughtException}, for threads the broker does not own: library pools
 * such as Ratis's or Netty's, executors) only an {@link Error} halts; an exception escaping such a thread is logged,
 * since the library may expect its threads to die that way and the broker can still serve. Threads made by
 * {@link #newThread} run broker loops meant never to end, so anything escaping them halts.
 *
 * <p>Thread-safety: safe from any thread; only the first fatal error acts.
 */
public final class FatalErrorHandler implements Thread.UncaughtExceptionHandler {
    private static final Logger log = LoggerFactory.getLogger(FatalErrorHandler.class);
    /** Exit status of a halt on a fatal error (distinct from the usage error 2 of BrokerMain). */
    public static final int EXIT_STATUS = 70;

    /** What ends the process; {@link Runtime#halt} outside tests. */
    @FunctionalInterface
    public interface ExitAction {
        void exit(int status);
    }

    private static final FatalErrorHandler HALTING = new FatalErrorHandler(s -> Runtime.getRuntime().halt(s));

    private final ExitAction exit;
    private final AtomicBoolean fired = new AtomicBoolean();
    private volatile Fatal first;

    /** The first fatal error: where (thread or task) and what. */
    public record Fatal(String where, Throwable error) {
    }

    public FatalErrorHandler(ExitAction exit) {
        this.exit = exit;
    }

    /** The process-wide handler, which halts the JVM. */
    public static FatalErrorHandler halting() {
        return HALTING;
    }

    /** For any thread (the JVM default): an Error halts, an exception is logged. */
    @Override
    public void uncaughtException(Thread t, Throwable e) {
        if (e instanceof Error) {
            fatal(t.getName(), e);
            return;
        }
        try {
            log.error("Uncaught exception in thread {} (not a broker loop); not halting", t.getName(), e);
        } catch (Throwable ignored) {
            // nothing more to do
        }
    }

    /** Logs the last line and runs the exit action (once). */
    public void fatal(String where, Throwable e) {
        if (!fired.compareAndSet(false, true)) return;
        first = new Fatal(where, e);
        String line = "FATAL: " + e + " in broker thread " + where + "; halting (exit " + EXIT_STATUS
                + ") so that a supervisor restarts the broker";
        try {
            log.error(line, e);
        } catch (Throwable ignored) {
            // logging may itself fail under OutOfMemoryError; stderr below is the fallback
        }
        try {
            System.err.println(line);
            System.err.flush();
        } finally {
            exit.exit(EXIT_STATUS);
        }
    }

    /** The first fatal error seen, if any (for tests; the process is gone otherwise). */
    public java.util.Optional<Fatal> firstFatal() {
        return java.util.Optional.ofNullable(first);
    }

    /** A daemon thread whose escaping throwables are fatal. */
    public Thread newThread(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((thread, e) -> fatal(thread.getName(), e));
        return t;
    }

    /**
     * Wraps a task for an executor, where a throwable would otherwise vanish into a Future and silently stop a
     * periodic task: Errors are fatal; exceptions are the task's own business and are rethrown.
     */
    public Runnable guard(String where, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Error e) {
                fatal(where, e);
                throw e;
            }
        };
    }
}
