package io.faultline.kafkacompat;

import java.lang.reflect.InvocationTargetException;
import java.util.function.Supplier;

/**
 * Which kafka-clients a run talks to its brokers with. {@link #CURRENT} is the 4.4 on the class path;
 * {@link #LEGACY} is 3.9.1, the last line that still speaks the protocol versions brokers older than 2.1 need
 * (KIP-896 removed them in 4.0). LEGACY classes come from {@link IsolatingClassLoader}: Faultline's own
 * Kafka-using classes are defined a second time there, linked against 3.9.1, so one harness drives both.
 */
public enum KafkaClientLine {
    CURRENT("4.4.0"),
    LEGACY("3.9.1");

    private final String clientsVersion;

    KafkaClientLine(String clientsVersion) {
        this.clientsVersion = clientsVersion;
    }

    /** The kafka-clients release of this line. */
    public String clientsVersion() {
        return clientsVersion;
    }

    /** The loader the line's Kafka-using classes live in. */
    public ClassLoader loader() {
        return this == CURRENT ? KafkaClientLine.class.getClassLoader() : IsolatingClassLoader.legacy();
    }

    /**
     * Calls a public static method of {@code className} as this line's loader defines it. Arguments and the result
     * must be of types both sides share (JDK types, Faultline types that touch no Kafka class).
     */
    public Object invokeStatic(String className, String method, Class<?>[] types, Object... args) {
        ClassLoader loader = loader();
        Thread self = Thread.currentThread();
        ClassLoader before = self.getContextClassLoader();
        self.setContextClassLoader(loader);
        try {
            Class<?> c = this == CURRENT ? Class.forName(className, true, loader)
                    : IsolatingClassLoader.legacy().loadIsolated(className);
            return c.getMethod(method, types).invoke(null, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) throw r;
            if (cause instanceof Error err) throw err;
            throw new IllegalStateException(cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("kafka-clients " + clientsVersion + ": cannot call " + className + "."
                    + method + ": " + e, e);
        } finally {
            self.setContextClassLoader(before);
        }
    }

    /**
     * Runs {@code action} with the thread's context class loader set to {@code anchor}'s loader: kafka-clients
     * resolves class names in its configuration through the context loader first, which must be its own line's.
     */
    public static <T> T withLoaderOf(Class<?> anchor, Supplier<T> action) {
        Thread self = Thread.currentThread();
        ClassLoader before = self.getContextClassLoader();
        self.setContextClassLoader(anchor.getClassLoader());
        try {
            return action.get();
        } finally {
            self.setContextClassLoader(before);
        }
    }

    /** The kafka-clients version the given (possibly isolated) class is linked against. */
    public static String clientsVersionOf(Class<?> anchor) {
        return anchor.getClassLoader() instanceof IsolatingClassLoader ? LEGACY.clientsVersion : CURRENT.clientsVersion;
    }
}
