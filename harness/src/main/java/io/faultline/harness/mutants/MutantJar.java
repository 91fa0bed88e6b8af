package io.faultline.harness.mutants;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/** A mutant made real: the broker-impl jar with one class replaced, after checking the mutant is live. */
public final class MutantJar {
    private MutantJar() {}

    /**
     * Whether a mutant can run and differs from the original: its bytes differ, and the JVM loads and verifies the
     * mutated class against the rest of the jar and its dependencies ({@code dependencies}). Null when live, else why
     * not.
     */
    public static String whyNotLive(MutantCatalog catalog, Mutant m, List<Path> dependencies) {
        byte[] mutated = catalog.mutatedBytes(m);
        if (Arrays.equals(mutated, catalog.originalBytes(m.className()))) return "the mutated class is byte-identical";
        List<Path> classpath = new ArrayList<>();
        classpath.add(catalog.jar());
        classpath.addAll(dependencies);
        try (var loader = new MutantLoader(m.className(), mutated, classpath)) {
            Class<?> c = Class.forName(m.className(), false, loader);
            if (c.getClassLoader() != loader) return "the mutated class was not the one loaded";
            c.getDeclaredMethods(); // links the class: the verifier checks every method's bytecode
            return null;
        } catch (LinkageError | ClassNotFoundException e) {
            return "the mutated class does not load: " + e;
        } catch (IOException e) {
            return "cannot read the jars: " + e;
        }
    }

    /** Writes the broker-impl jar with the mutant's class replaced to {@code out}; returns out. */
    public static Path write(MutantCatalog catalog, Mutant m, Path out) throws IOException {
        String entryName = m.className().replace('.', '/') + ".class";
        byte[] mutated = catalog.mutatedBytes(m);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), out.getFileName().toString(), ".part");
        boolean replaced = false;
        try (JarFile in = new JarFile(catalog.jar().toFile());
             JarOutputStream jar = new JarOutputStream(Files.newOutputStream(tmp))) {
            for (JarEntry e : java.util.Collections.list(in.entries())) {
                // a fresh entry: the original's sizes and CRC belong to the original bytes
                JarEntry copy = new JarEntry(e.getName());
                copy.setTime(e.getTime());
                jar.putNextEntry(copy);
                if (e.getName().equals(entryName)) {
                    jar.write(mutated);
                    replaced = true;
                } else if (!e.isDirectory()) {
                    try (InputStream data = in.getInputStream(e)) {
                        data.transferTo(jar);
                    }
                }
                jar.closeEntry();
            }
        }
        if (!replaced) {
            Files.deleteIfExists(tmp);
            throw new IllegalStateException("no entry " + entryName + " in " + catalog.jar());
        }
        Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return out;
    }

    /** Loads one class from given bytes and everything else from the jars, never from the harness's own classpath. */
    private static final class MutantLoader extends URLClassLoader {
        private final String name;
        private final byte[] bytes;

        MutantLoader(String name, byte[] bytes, List<Path> libs) throws IOException {
            super(urls(libs), ClassLoader.getPlatformClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        private static URL[] urls(List<Path> libs) throws IOException {
            List<URL> out = new ArrayList<>();
            for (Path p : libs) out.add(p.toUri().toURL());
            return out.toArray(URL[]::new);
        }

        @Override
        protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(n)) {
                if (n.equals(name)) {
                    Class<?> c = findLoadedClass(n);
                    if (c == null) c = defineClass(n, bytes, 0, bytes.length);
                    if (resolve) resolveClass(c);
                    return c;
                }
                return super.loadClass(n, resolve);
            }
        }
    }

}
