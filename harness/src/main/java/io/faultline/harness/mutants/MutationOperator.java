package io.faultline.harness.mutants;

import org.pitest.mutationtest.engine.gregor.MethodMutatorFactory;
import org.pitest.mutationtest.engine.gregor.mutators.ConditionalsBoundaryMutator;
import org.pitest.mutationtest.engine.gregor.mutators.IncrementsMutator;
import org.pitest.mutationtest.engine.gregor.mutators.MathMutator;
import org.pitest.mutationtest.engine.gregor.mutators.NegateConditionalsMutator;
import org.pitest.mutationtest.engine.gregor.mutators.VoidMethodCallMutator;
import org.pitest.mutationtest.engine.gregor.mutators.returns.BooleanFalseReturnValsMutator;
import org.pitest.mutationtest.engine.gregor.mutators.returns.BooleanTrueReturnValsMutator;
import org.pitest.mutationtest.engine.gregor.mutators.returns.PrimitiveReturnsMutator;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The standard mutation operators `mutants` applies, each one of PIT's bytecode mutators (PIT is only the generator
 * here: it finds the places and writes the mutated class; running and judging the mutants is the harness's).
 */
public enum MutationOperator {
    NEGATE_CONDITIONALS("negate-conditionals", NegateConditionalsMutator.NEGATE_CONDITIONALS),
    CONDITIONALS_BOUNDARY("conditionals-boundary", ConditionalsBoundaryMutator.CONDITIONALS_BOUNDARY),
    REMOVE_VOID_CALL("remove-void-call", VoidMethodCallMutator.VOID_METHOD_CALLS),
    RETURN_TRUE("return-true", BooleanTrueReturnValsMutator.TRUE_RETURNS),
    RETURN_FALSE("return-false", BooleanFalseReturnValsMutator.FALSE_RETURNS),
    RETURN_ZERO("return-zero", PrimitiveReturnsMutator.PRIMITIVE_RETURNS),
    INCREMENTS("increments", IncrementsMutator.INCREMENTS),
    MATH("math", MathMutator.MATH);

    private final String id;
    private final MethodMutatorFactory pit;

    MutationOperator(String id, MethodMutatorFactory pit) {
        this.id = id;
        this.pit = pit;
    }

    public String id() {
        return id;
    }

    MethodMutatorFactory pit() {
        return pit;
    }

    /** The operator whose PIT mutator has this global id (what PIT's mutation details name). */
    static MutationOperator ofPit(String pitId) {
        for (MutationOperator o : values()) if (o.pit.getGloballyUniqueId().equals(pitId)) return o;
        throw new IllegalStateException("PIT mutator not one of ours: " + pitId);
    }

    /** An operator by its id; an unknown id is one line listing the known ones. */
    public static MutationOperator of(String id) {
        for (MutationOperator o : values()) if (o.id.equals(id)) return o;
        throw new IllegalArgumentException("unknown mutation operator '" + id + "'; known: " + ids());
    }

    public static String ids() {
        return Arrays.stream(values()).map(MutationOperator::id).collect(Collectors.joining(", "));
    }

    public static List<MutationOperator> all() {
        return List.of(values());
    }
}
