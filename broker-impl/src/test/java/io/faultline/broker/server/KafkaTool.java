package io.faultline.broker.server;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.internals.Exit;

/**
 * Runs one of Kafka's command-line tools (kafka-tools 4.4.0) in this JVM as an operator would run the script: its
 * exit code (Kafka's Exit throws here instead of ending the JVM; returning from main is 0) and what it printed.
 */
final class KafkaTool {
    /** A tool's exit code and what it printed on stdout and stderr. */
    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
        }
    }

    interface Main {
        void main(String[] args) throws Exception;
    }

    private static final class ExitCalled extends RuntimeException {
        final int code;

        ExitCalled(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    private KafkaTool() {}

    /** Synchronized: System.out and Exit are JVM-wide. */
    static synchronized Result run(Main tool, String... args) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        Exit.setExitProcedure((code, msg) -> {
            throw new ExitCalled(code);
        });
        int code = 0;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            tool.main(args);
        } catch (ExitCalled x) {
            code = x.code;
        } finally {
            System.setOut(out);
            System.setErr(err);
            Exit.resetExitProcedure();
        }
        return new Result(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }
}
