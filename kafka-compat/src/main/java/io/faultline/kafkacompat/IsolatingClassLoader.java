package io.faultline.kafkacompat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;

/**
 * A child-first loader for kafka-clients 3.9.1 (a jar shipped inside this module as a resource). It defines
 * <ul>
 *   <li>every {@code org.apache.kafka.*} class from that jar, and</li>
 *   <li>every Faultline class whose bytecode names a Kafka class (and its nested classes) anew from the parent's
 *       bytes, so the same compiled workload code links against 3.9.1 here and 4.4 outside;</li>
 * </ul>
 * and leaves everything else (the JDK, the history model, compression and logging libraries) to the parent, so
 * values of those types cross the boundary freely.
 */
final class IsolatingClassLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private static final String JAR_RESOURCE = "io/faultline/kafkacompat/kafka-clients-legacy.jar";
    private static final byte[] KAFKA_PACKAGE = "org/apache/kafka/".getBytes(StandardCharsets.UTF_8);
    private static volatile IsolatingClassLoader legacy;

    private IsolatingClassLoader(URL jar, ClassLoader parent) {
        super("kafka-clients-legacy", new URL[]{jar}, parent);
    }

    static IsolatingClassLoader legacy() {
        IsolatingClassLoader l = legacy;
        if (l == null) {
            synchronized (IsolatingClassLoader.class) {
                if (legacy == null) legacy = new IsolatingClassLoader(jarUrl(), KafkaClientLine.class.getClassLoader());
                l = legacy;
            }
        }
        return l;
    }

    /** The 3.9.1 jar as a file URL: as it is in target/classes, or copied out of this module's jar once. */
    private static URL jarUrl() {
        URL resource = IsolatingClassLoader.class.getClassLoader().getResource(JAR_RESOURCE);
        if (resource == null) {
            throw new IllegalStateException("kafka-clients " + KafkaClientLine.LEGACY.clientsVersion() + " is missing from "
                    + "kafka-compat (" + JAR_RESOURCE + "): build the project first (./mvnw -pl kafka-compat process-resources)");
        }
        try {
            if ("file".equals(resource.getProtocol())) return resource;
            Path copy = Files.createTempFile("faultline-kafka-clients-legacy", ".jar");
            copy.toFile().deleteOnExit();
            try (InputStream in = resource.openStream()) {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            return copy.toUri().toURL();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Loads {@code name} defined by this loader even if its bytecode names no Kafka class (an entry point). */
    Class<?> loadIsolated(String name) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c != null) return c;
            byte[] bytes = parentBytes(name);
            if (bytes == null) throw new ClassNotFoundException(name);
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                if (name.startsWith("org.apache.kafka.")) {
                    c = findClass(name); // never the parent's 4.4 copy, even for a class 3.9.1 lacks
                } else if (name.startsWith("io.faultline.") && !name.startsWith("io.faultline.kafkacompat.KafkaClientLine")) {
                    byte[] bytes = parentBytes(name);
                    c = bytes != null && namesKafka(name, bytes) ? defineClass(name, bytes, 0, bytes.length)
                            : getParent().loadClass(name);
                } else {
                    c = getParent().loadClass(name);
                }
            }
            if (resolve) resolveClass(c);
            return c;
        }
    }

    /** Whether the class (or the class it is nested in) names a Kafka class, so it must link against this line. */
    private boolean namesKafka(String name, byte[] bytes) {
        if (contains(bytes, KAFKA_PACKAGE)) return true;
        int nest = name.indexOf('$');
        if (nest < 0) return false;
        String outer = name.substring(0, nest);
        Class<?> loadedOuter = findLoadedClass(outer); // also finds classes this loader merely delegated
        if (loadedOuter != null) return loadedOuter.getClassLoader() == this;
        byte[] outerBytes = parentBytes(outer);
        return outerBytes != null && contains(outerBytes, KAFKA_PACKAGE);
    }

    private byte[] parentBytes(String name) {
        try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
            return true;
        }
        return false;
    }

    /** Resources of the 3.9.1 jar first (its version file, its message schemas), then the parent's. */
    @Override
    public URL getResource(String name) {
        URL own = name.startsWith("META-INF/") ? null : findResource(name);
        return own != null ? own : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        return name.startsWith("META-INF/") ? getParent().getResources(name) : super.getResources(name);
    }
}
