package io.faultline.harness;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** `faultline doctor`: what a run needs, present or not, and the fix for each missing part. Starts nothing. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "Check what a run needs (Java, Docker engine, base image, FUSE, free disk, memory, Chromium)"
                + " and print one line per check with its fix. Exit 0 when everything a run needs is present.")
final class DoctorCommand implements Callable<Integer> {
    @Option(names = "--store", description = "Run store folder whose disk is checked (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        List<Doctor.Check> checks = new Doctor(System.getenv(), store).run();
        var out = spec.commandLine().getOut();
        checks.forEach(c -> out.println(c.line()));
        long missing = checks.stream().filter(c -> c.status() == Doctor.Status.MISSING).count();
        out.println(missing == 0 ? "faultline doctor: everything a run needs is present"
                : "faultline doctor: " + missing + " of " + checks.size() + " missing");
        out.flush();
        return Doctor.allRequiredPresent(checks) ? FaultlineCli.EXIT_VALID : FaultlineCli.EXIT_INVALID;
    }
}
