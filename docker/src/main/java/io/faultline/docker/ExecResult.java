package io.faultline.docker;

/** What a command run inside a node printed and how it exited. */
public record ExecResult(int exitCode, String stdout, String stderr) {
    public boolean succeeded() {
        return exitCode == 0;
    }

    /** Throws with the command's output when it failed; returns stdout otherwise. */
    public String orThrow(String what) {
        if (!succeeded()) {
            throw new IllegalStateException(what + " failed (exit " + exitCode + "): " + stderr.strip() + " " + stdout.strip());
        }
        return stdout;
    }
}
