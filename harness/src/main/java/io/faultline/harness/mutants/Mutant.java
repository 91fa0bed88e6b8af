package io.faultline.harness.mutants;

/**
 * One mutation of broker-impl: where it is (class, method, source line), what the operator did, and a stable id (a
 * hash of the class, method, instruction and operator, so the same build lists the same ids).
 *
 * @param className   the binary class name (io.faultline.broker.replication.LeaderState, or Outer$Inner)
 * @param method      the method's name
 * @param line        the source line of the mutated instruction
 * @param operator    the operator that made it
 * @param description what changed, in PIT's words ("negated conditional", "removed call to ...")
 */
public record Mutant(String id, String className, String method, int line, MutationOperator operator, String description) {
    /** The class's name without its package (for listings and the page). */
    public String simpleClassName() {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** The class's package. */
    public String packageName() {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    /** The source file the class was compiled from, by the convention of one top-level class per file. */
    public String sourcePath() {
        String outer = className.contains("$") ? className.substring(0, className.indexOf('$')) : className;
        return outer.replace('.', '/') + ".java";
    }

    /** One line: id, class, line, operator, description (what `mutants --list` prints). */
    public String listing() {
        return String.format("%s  %s:%d  %s  %s (in %s)", id, className, line, operator.id(), description, method);
    }
}
