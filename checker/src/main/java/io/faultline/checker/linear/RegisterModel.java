package io.faultline.checker.linear;

/**
 * A read/write register holding a long; {@link #withCas()} also allows compare-and-set. The state is the value,
 * or {@link #EMPTY} before the first write; a read of an empty register returns EMPTY (null would mean "not
 * observed").
 */
public final class RegisterModel implements Model<Long, RegisterOp, Object> {
    /** The state of a register never written. Boxed on purpose: states are compared with equals. */
    public static final Long EMPTY = Long.MIN_VALUE;

    private final boolean cas;
    private final Long initial;

    private RegisterModel(boolean cas, Long initial) {
        this.cas = cas;
        this.initial = initial;
    }

    public static RegisterModel register() {
        return new RegisterModel(false, EMPTY);
    }

    public static RegisterModel withCas() {
        return new RegisterModel(true, EMPTY);
    }

    public RegisterModel startingAt(long value) {
        return new RegisterModel(cas, value);
    }

    @Override
    public Long initial() {
        return initial;
    }

    @Override
    public Long step(Long state, RegisterOp input, Object output) {
        if (input instanceof RegisterOp.Write w) {
            return w.value();
        }
        if (input instanceof RegisterOp.Read) {
            return output == null || output.equals(state) ? state : null;
        }
        RegisterOp.Cas c = (RegisterOp.Cas) input;
        if (!cas) {
            throw new IllegalArgumentException("compare-and-set on a plain register model");
        }
        boolean swaps = state == c.expected();
        if (output != null && !output.equals(swaps)) {
            return null;
        }
        return swaps ? c.update() : state;
    }

    @Override
    public String describe(RegisterOp input, Object output) {
        if (input instanceof RegisterOp.Write w) {
            return "write " + w.value() + (output == null ? " (indeterminate)" : "");
        }
        if (input instanceof RegisterOp.Read) {
            return "read → " + (output == null ? "?" : EMPTY.equals(output) ? "nothing" : output);
        }
        RegisterOp.Cas c = (RegisterOp.Cas) input;
        return "cas " + c.expected() + "→" + c.update() + " → " + (output == null ? "?" : output);
    }
}
