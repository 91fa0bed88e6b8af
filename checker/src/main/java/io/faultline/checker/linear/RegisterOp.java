package io.faultline.checker.linear;

/** Inputs of the register models. */
public sealed interface RegisterOp permits RegisterOp.Read, RegisterOp.Write, RegisterOp.Cas {
    /** Output: the value read (a Long), {@link RegisterModel#EMPTY} if the register had never been written. */
    record Read() implements RegisterOp {
        @Override
        public String toString() {
            return "read";
        }
    }

    /** Output: ignored. */
    record Write(long value) implements RegisterOp {
        @Override
        public String toString() {
            return "write " + value;
        }
    }

    /** Output: Boolean, whether it swapped. */
    record Cas(long expected, long update) implements RegisterOp {
        @Override
        public String toString() {
            return "cas " + expected + "→" + update;
        }
    }

    RegisterOp READ = new Read();
}
