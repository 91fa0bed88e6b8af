package io.faultline.harness.mutants;

import org.pitest.classinfo.ClassName;
import org.pitest.mutationtest.engine.MutationDetails;
import org.pitest.mutationtest.engine.MutationIdentifier;
import org.pitest.mutationtest.engine.gregor.GregorMutater;
import org.pitest.mutationtest.engine.gregor.MethodInfo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Every mutant the operators make in the chosen packages of a broker-impl jar, in a fixed order (class, line,
 * operator, id), and a seeded selection from them. PIT finds the places and writes the mutated bytes; the jar is read
 * once, so listing, selecting and writing a mutant never touch a build.
 */
public final class MutantCatalog {
    /** The packages of broker-impl whose code the harness's faults exercise (replication, leadership, logs, groups). */
    public static final List<String> DEFAULT_PACKAGES = List.of("io.faultline.broker.replication",
            "io.faultline.broker.partition", "io.faultline.broker.storage", "io.faultline.broker.controller",
            "io.faultline.broker.group");

    private final Path jar;
    private final Map<String, byte[]> classes; // binary name -> bytes, every class of the jar
    private final List<String> packages;
    private final List<MutationOperator> operators;
    private final GregorMutater mutater;
    private final List<Mutant> mutants = new ArrayList<>();
    private final Map<String, MutationIdentifier> pitIds = new LinkedHashMap<>();

    private MutantCatalog(Path jar, Map<String, byte[]> classes, ClassLoader dependencies, List<String> packages,
                          List<MutationOperator> operators) {
        this.jar = jar;
        this.classes = classes;
        this.packages = List.copyOf(packages);
        this.operators = List.copyOf(operators);
        // Writing a mutated method recomputes its stack frames, which needs the class files of the types it merges:
        // the jar's own, its dependencies' and the JDK's.
        this.mutater = new GregorMutater(name -> {
            byte[] own = classes.get(name.replace('/', '.'));
            return own != null ? Optional.of(own) : resource(dependencies, name);
        }, MutantCatalog::mutable, operators.stream().map(MutationOperator::pit).toList());
        for (String name : classes.keySet()) {
            if (!inPackages(name)) continue;
            for (MutationDetails d : mutater.findMutations(ClassName.fromString(name))) {
                if (equivalentByConstruction(d) || returnsWhatItReturned(d)) continue;
                Mutant m = new Mutant(idOf(d.getId()), name, d.getMethod(), d.getLineNumber(),
                        MutationOperator.ofPit(d.getMutator()), d.getDescription());
                if (pitIds.putIfAbsent(m.id(), d.getId()) == null) mutants.add(m);
            }
        }
        mutants.sort(Comparator.comparing(Mutant::className).thenComparingInt(Mutant::line)
                .thenComparing(m -> m.operator().id()).thenComparing(Mutant::id));
    }

    private static Optional<byte[]> resource(ClassLoader loader, String className) {
        try (InputStream in = loader.getResourceAsStream(className.replace('.', '/') + ".class")) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The mutants of {@code packages} (exactly those packages, not their sub-packages) in the jar; {@code libs} are
     * its runtime dependencies (the node image's other jars).
     */
    public static MutantCatalog of(Path jar, List<Path> libs, List<String> packages, List<MutationOperator> operators)
            throws IOException {
        if (packages.isEmpty()) throw new IllegalArgumentException("--packages names none");
        if (operators.isEmpty()) throw new IllegalArgumentException("--operators names none");
        Map<String, byte[]> classes = new TreeMap<>();
        try (JarFile jf = new JarFile(jar.toFile())) {
            for (JarEntry e : java.util.Collections.list(jf.entries())) {
                String n = e.getName();
                if (!n.endsWith(".class") || n.equals("module-info.class")) continue;
                try (InputStream in = jf.getInputStream(e)) {
                    classes.put(n.substring(0, n.length() - ".class".length()).replace('/', '.'), in.readAllBytes());
                }
            }
        }
        for (String p : packages) {
            String prefix = p + ".";
            if (classes.keySet().stream().noneMatch(c -> c.startsWith(prefix))) {
                throw new IllegalArgumentException("--packages: no class of package " + p + " in " + jar.getFileName());
            }
        }
        List<java.net.URL> urls = new ArrayList<>();
        for (Path p : libs) urls.add(p.toUri().toURL());
        var dependencies = new java.net.URLClassLoader(urls.toArray(java.net.URL[]::new), ClassLoader.getPlatformClassLoader());
        return new MutantCatalog(jar, classes, dependencies, packages, operators);
    }

    private boolean inPackages(String className) {
        int dot = className.lastIndexOf('.');
        return dot > 0 && packages.contains(className.substring(0, dot));
    }

    /**
     * Methods worth mutating: not static initialisers (a mutant there breaks loading, not behaviour) and not the
     * bridges and accessors the compiler writes; lambdas' bodies (synthetic too) are real code and stay.
     */
    private static boolean mutable(MethodInfo m) {
        if (m.getName().equals("<clinit>")) return false;
        return !m.isSynthetic() || m.getName().startsWith("lambda$");
    }

    /** Removing a logging call changes only the log, never the broker's behaviour. */
    private static boolean equivalentByConstruction(MutationDetails d) {
        return d.getDescription().contains("org/slf4j/");
    }

    /**
     * A return-value mutant on a line that already returns that constant ({@code return true;} made to return true)
     * is the same program: PIT's own filter for these is not used here, so the mutated method is read back and the
     * mutant dropped when the value it throws away is the constant it returns instead.
     */
    private boolean returnsWhatItReturned(MutationDetails d) {
        MutationOperator op = MutationOperator.ofPit(d.getMutator());
        if (op != MutationOperator.RETURN_TRUE && op != MutationOperator.RETURN_FALSE && op != MutationOperator.RETURN_ZERO) return false;
        var node = new org.objectweb.asm.tree.ClassNode();
        new org.objectweb.asm.ClassReader(mutater.getMutation(d.getId()).getBytes()).accept(node, 0);
        var location = d.getId().getLocation();
        for (var m : node.methods) {
            if (!m.name.equals(location.getMethodName()) || !m.desc.equals(location.getMethodDesc())) continue;
            return hasConstantReplacedByItself(m.instructions);
        }
        return false;
    }

    /** Whether the code holds "push c; pop; push c; return": the mutation's shape when it changes nothing. */
    static boolean hasConstantReplacedByItself(org.objectweb.asm.tree.InsnList instructions) {
        List<org.objectweb.asm.tree.AbstractInsnNode> real = new ArrayList<>();
        for (var i : instructions) if (i.getOpcode() >= 0) real.add(i);
        for (int k = 0; k + 3 < real.size(); k++) {
            int push = real.get(k).getOpcode(), pop = real.get(k + 1).getOpcode();
            int again = real.get(k + 2).getOpcode(), ret = real.get(k + 3).getOpcode();
            boolean constant = push >= org.objectweb.asm.Opcodes.ACONST_NULL && push <= org.objectweb.asm.Opcodes.DCONST_1;
            boolean pops = pop == org.objectweb.asm.Opcodes.POP || pop == org.objectweb.asm.Opcodes.POP2;
            boolean returns = ret >= org.objectweb.asm.Opcodes.IRETURN && ret <= org.objectweb.asm.Opcodes.ARETURN;
            if (constant && pops && again == push && returns) return true;
        }
        return false;
    }

    private static String idOf(MutationIdentifier pit) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update((pit.getClassName().asJavaName() + "|" + pit.getLocation().getMethodName() + "|"
                    + pit.getLocation().getMethodDesc() + "|" + pit.getIndexes() + "|" + pit.getMutator())
                    .getBytes(StandardCharsets.UTF_8));
            return "m" + HexFormat.of().formatHex(md.digest(), 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public Path jar() {
        return jar;
    }

    public List<String> packages() {
        return packages;
    }

    public List<MutationOperator> operators() {
        return operators;
    }

    /** Every mutant, in the catalog's fixed order. */
    public List<Mutant> all() {
        return List.copyOf(mutants);
    }

    /**
     * {@code count} mutants drawn without repeats by a generator seeded with {@code seed} (all of them when there
     * are fewer): the same jar, packages, operators and seed give the same mutants in the same order.
     */
    public List<Mutant> select(long seed, int count) {
        if (count < 1) throw new IllegalArgumentException("--count must be at least 1, got " + count);
        List<Mutant> pool = new ArrayList<>(mutants);
        var random = new SplittableRandom(seed);
        List<Mutant> out = new ArrayList<>();
        while (out.size() < count && !pool.isEmpty()) out.add(pool.remove(random.nextInt(pool.size())));
        return out;
    }

    /** The mutant with this id; an unknown id is one line. */
    public Mutant named(String id) {
        return mutants.stream().filter(m -> m.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no mutant " + id + " in " + jar.getFileName()
                        + " (packages " + String.join(", ", packages) + "; `mutants --list` lists them)"));
    }

    /** The original bytes of a class of the jar. */
    public byte[] originalBytes(String className) {
        byte[] b = classes.get(className);
        if (b == null) throw new IllegalArgumentException("no class " + className + " in " + jar.getFileName());
        return b.clone();
    }

    /** The mutated class's bytes. */
    public byte[] mutatedBytes(Mutant m) {
        MutationIdentifier id = pitIds.get(m.id());
        if (id == null) throw new IllegalArgumentException("not a mutant of this catalog: " + m.id());
        return mutater.getMutation(id).getBytes();
    }
}
