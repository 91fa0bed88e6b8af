package io.faultline.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

/** The run's own log: every line goes to the terminal (stderr) and to faultline.log in the run folder. */
final class RunLog implements AutoCloseable {
    private final PrintStream terminal;
    /** Lines said before the run folder existed (the seed first of all), copied into the file on attach. */
    private final java.util.List<String> early = new java.util.ArrayList<>();
    private Writer file;

    RunLog(PrintStream terminal) {
        this.terminal = terminal;
    }

    /** Starts copying lines to the run folder's faultline.log (before that, they only reach the terminal). */
    synchronized void attach(Path logFile) throws IOException {
        // Not Files.newBufferedWriter: its channel closes for good when a logging thread is interrupted (Ctrl-C).
        file = new java.io.BufferedWriter(new java.io.OutputStreamWriter(
                new java.io.FileOutputStream(logFile.toFile(), true), StandardCharsets.UTF_8));
        for (String line : early) file.write(line);
        early.clear();
        file.flush();
    }

    synchronized void line(String text) {
        terminal.println("faultline: " + text);
        terminal.flush();
        String stamped = Instant.now() + " " + text + "\n";
        if (file == null) {
            early.add(stamped);
        } else {
            try {
                file.write(stamped);
                file.flush();
            } catch (IOException ignored) {
                // the terminal still has it
            }
        }
    }

    @Override
    public synchronized void close() {
        if (file != null) {
            try {
                file.close();
            } catch (IOException ignored) {
                // nothing left to do
            }
            file = null;
        }
    }
}
