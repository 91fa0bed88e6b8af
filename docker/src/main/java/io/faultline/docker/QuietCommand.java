package io.faultline.docker;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A command of this machine run for its exit code alone: its output discarded, bounded in time. */
final class QuietCommand {
    private QuietCommand() {}

    /** Whether {@code command} exited 0 within {@code bound} (false when it could not start, timed out or failed). */
    static boolean succeeds(Duration bound, List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
