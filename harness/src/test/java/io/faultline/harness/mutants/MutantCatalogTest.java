package io.faultline.harness.mutants;

import io.faultline.docker.sut.BrokerImpl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mutant generator on the built broker-impl jar: every operator makes live, different classes; selection is seeded. */
class MutantCatalogTest {
    private static Path brokerJar;
    private static final List<Path> dependencies = new ArrayList<>();

    @BeforeAll
    static void jars() throws IOException {
        try (var files = Files.list(BrokerImpl.libsDirectory())) {
            for (Path f : files.sorted().toList()) {
                if (BrokerImpl.isBrokerJar(f)) brokerJar = f;
                else dependencies.add(f);
            }
        }
        assertTrue(brokerJar != null, "the built broker-impl jar");
    }

    private static MutantCatalog catalog(List<String> packages, List<MutationOperator> operators) throws IOException {
        return MutantCatalog.of(brokerJar, dependencies, packages, operators);
    }

    @Test
    void everyOperatorMakesLiveMutantsWhoseClassDiffers() throws IOException {
        MutantCatalog c = catalog(MutantCatalog.DEFAULT_PACKAGES, MutationOperator.all());
        var random = new java.util.SplittableRandom(11);
        for (MutationOperator op : MutationOperator.values()) {
            List<Mutant> ofOp = c.all().stream().filter(m -> m.operator() == op).toList();
            assertFalse(ofOp.isEmpty(), op.id() + " makes mutants");
            // three of each, spread over the catalog: enough to catch an operator whose output does not verify
            for (int i = 0; i < 3; i++) {
                Mutant m = ofOp.get(random.nextInt(ofOp.size()));
                assertTrue(MutantCatalog.DEFAULT_PACKAGES.contains(m.packageName()), m.className());
                assertFalse(Arrays.equals(c.originalBytes(m.className()), c.mutatedBytes(m)), m.listing());
                assertNull(MutantJar.whyNotLive(c, m, dependencies), m.listing());
                assertTrue(m.line() > 0, "a source line: " + m.listing());
            }
        }
    }

    @Test
    void aCatalogOfOneOperatorHoldsOnlyItsMutants() throws IOException {
        MutantCatalog c = catalog(List.of("io.faultline.broker.partition"), List.of(MutationOperator.MATH));
        assertFalse(c.all().isEmpty());
        assertTrue(c.all().stream().allMatch(m -> m.operator() == MutationOperator.MATH));
    }

    @Test
    void theOperatorsSayWhatTheyChanged() throws IOException {
        MutantCatalog c = catalog(List.of("io.faultline.broker.replication"), MutationOperator.all());
        assertTrue(c.all().stream().filter(m -> m.operator() == MutationOperator.NEGATE_CONDITIONALS)
                .allMatch(m -> m.description().contains("negated conditional")));
        assertTrue(c.all().stream().filter(m -> m.operator() == MutationOperator.REMOVE_VOID_CALL)
                .allMatch(m -> m.description().startsWith("removed call to")));
        assertTrue(c.all().stream().filter(m -> m.operator() == MutationOperator.RETURN_TRUE)
                .allMatch(m -> m.description().contains("with true")));
        assertTrue(c.all().stream().noneMatch(m -> m.description().contains("org/slf4j/")), "logging calls are never removed");
        assertTrue(c.all().stream().noneMatch(m -> m.method().equals("<clinit>")), "no static initialiser");
    }

    @Test
    void theSelectionIsAFunctionOfTheSeed() throws IOException {
        MutantCatalog a = catalog(MutantCatalog.DEFAULT_PACKAGES, MutationOperator.all());
        MutantCatalog b = catalog(MutantCatalog.DEFAULT_PACKAGES, MutationOperator.all());
        assertEquals(a.all(), b.all(), "the same jar lists the same mutants, ids and order");
        assertEquals(a.select(7, 10), b.select(7, 10));
        assertNotEquals(a.select(7, 10), a.select(8, 10));
        assertEquals(a.select(7, 3), a.select(7, 10).subList(0, 3), "a larger count extends a smaller one");
        assertEquals(10, a.select(7, 10).stream().distinct().count(), "no repeats");
        assertEquals(a.all().size(), a.select(7, a.all().size() + 5).size(), "at most the whole catalog");
        Mutant some = a.select(7, 1).get(0);
        assertEquals(some, b.named(some.id()));
        assertThrows(IllegalArgumentException.class, () -> a.select(7, 0));
        assertThrows(IllegalArgumentException.class, () -> a.named("m00000000"));
    }

    @Test
    void packagesAreExactAndAnUnknownOneIsRefused() throws IOException {
        MutantCatalog c = catalog(List.of("io.faultline.broker.group"), List.of(MutationOperator.NEGATE_CONDITIONALS));
        assertTrue(c.all().stream().allMatch(m -> m.packageName().equals("io.faultline.broker.group")));
        var e = assertThrows(IllegalArgumentException.class, () -> catalog(List.of("io.faultline.broker.nowhere"), MutationOperator.all()));
        assertTrue(e.getMessage().contains("io.faultline.broker.nowhere"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MutationOperator.of("flip-everything"));
    }

    @Test
    void theMutantJarDiffersFromTheOriginalInExactlyTheMutatedClass(@TempDir Path dir) throws IOException {
        MutantCatalog c = catalog(List.of("io.faultline.broker.partition"), MutationOperator.all());
        Mutant m = c.select(3, 1).get(0);
        Path out = MutantJar.write(c, m, dir.resolve(m.id() + ".jar"));
        String entry = m.className().replace('.', '/') + ".class";
        try (JarFile original = new JarFile(brokerJar.toFile()); JarFile mutated = new JarFile(out.toFile())) {
            assertEquals(original.size(), mutated.size());
            int differing = 0;
            for (var e : java.util.Collections.list(original.entries())) {
                if (e.isDirectory()) continue;
                byte[] before = original.getInputStream(e).readAllBytes();
                byte[] after = mutated.getInputStream(mutated.getEntry(e.getName())).readAllBytes();
                if (!Arrays.equals(before, after)) {
                    differing++;
                    assertEquals(entry, e.getName());
                    assertArrayEquals(c.mutatedBytes(m), after);
                }
            }
            assertEquals(1, differing, "one class replaced");
        }
    }

    private static org.objectweb.asm.tree.InsnList code(org.objectweb.asm.tree.AbstractInsnNode... instructions) {
        var list = new org.objectweb.asm.tree.InsnList();
        for (var i : instructions) list.add(i);
        return list;
    }

    private static org.objectweb.asm.tree.InsnNode op(int opcode) {
        return new org.objectweb.asm.tree.InsnNode(opcode);
    }

    @Test
    void aReturnMutantThatReturnsTheConstantTheLineAlreadyReturnedIsRecognisedAsTheSameProgram() {
        int one = org.objectweb.asm.Opcodes.ICONST_1, zero = org.objectweb.asm.Opcodes.ICONST_0;
        int pop = org.objectweb.asm.Opcodes.POP, ret = org.objectweb.asm.Opcodes.IRETURN;
        // `return true` made to return true: push 1, pop it, push 1, return
        assertTrue(MutantCatalog.hasConstantReplacedByItself(code(op(one), op(pop), op(one), op(ret))));
        // `return false` made to return true, and a computed value made to return true, change the program
        assertFalse(MutantCatalog.hasConstantReplacedByItself(code(op(zero), op(pop), op(one), op(ret))));
        assertFalse(MutantCatalog.hasConstantReplacedByItself(code(
                new org.objectweb.asm.tree.VarInsnNode(org.objectweb.asm.Opcodes.ILOAD, 1), op(pop), op(one), op(ret))));
    }
}
