package io.faultline.harness;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** `bin/faultline`: run Jepsen-style tests of Kafka-protocol brokers and read their results. */
@Command(name = "faultline", mixinStandardHelpOptions = true, versionProvider = FaultlineCli.Version.class,
        description = "Fault-injection tests of Kafka-protocol brokers, judged next to Apache Kafka.",
        subcommands = {TestCommand.class, AnalyzeCommand.class, ReplayCommand.class, CampaignCommand.class,
                ServeCommand.class, ShrinkCommand.class, ScenarioCommand.class,
                CompareCommand.class, VersionsCommand.class,
                BugsCommand.class, MutantsCommand.class, DoctorCommand.class, CompletionCommand.class, MergeCommand.class,
                ImageCommand.class})
public final class FaultlineCli implements Runnable {
    /** Exit codes: the verdict of the run(s), or a harness error. */
    public static final int EXIT_VALID = 0, EXIT_INVALID = 1, EXIT_UNKNOWN_OR_ERROR = 2;

    public static void main(String[] args) {
        quietClientLogs();
        System.exit(commandLine().execute(args));
    }

    /**
     * Kafka clients warn on every retry during a fault: keep the terminal for progress and verdicts (errors only). The
     * Admin client's DeleteRecords handler logs an ERROR for every refusal, and the topic lifecycle audit asks for one
     * on purpose (a deletion past the high watermark must be refused): its verdict is the audit's, not a log line.
     */
    static void quietClientLogs() {
        String level = "org.slf4j.simpleLogger.defaultLogLevel";
        System.setProperty(level, System.getProperty(level, "error"));
        String deleteRecords = "org.slf4j.simpleLogger.log.org.apache.kafka.clients.admin.internals.DeleteRecordsHandler";
        System.setProperty(deleteRecords, System.getProperty(deleteRecords, "off"));
    }

    /** The configured command line; tests call {@code execute} on it. */
    public static CommandLine commandLine() {
        var cli = new CommandLine(new FaultlineCli());
        // A bad flag gets one line, not a stack trace or a page of usage; a typo gets the name it most resembles.
        cli.setParameterExceptionHandler((ex, args) -> {
            CommandLine where = ex.getCommandLine();
            String hint = "";
            if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
                hint = CliHelp.closest(where.getCommandSpec(), unmatched.getUnmatched().get(0))
                        .map(name -> ". Did you mean " + name + "?").orElse("");
            }
            where.getErr().println("faultline: " + ex.getMessage() + hint
                    + " (see: " + where.getCommandSpec().qualifiedName() + " --help)");
            return EXIT_UNKNOWN_OR_ERROR;
        });
        CliHelp.addExamples(cli);
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof IllegalArgumentException) {
                commandLine.getErr().println("faultline: " + ex.getMessage());
            } else if (ex instanceof java.nio.file.NoSuchFileException missing) {
                commandLine.getErr().println("faultline: no such file or folder: " + missing.getFile());
            } else {
                commandLine.getErr().println("faultline: harness error: " + ex);
                ex.printStackTrace(commandLine.getErr());
            }
            return EXIT_UNKNOWN_OR_ERROR;
        });
        return cli;
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"faultline " + FaultlineVersion.get()};
        }
    }
}
