package io.faultline.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Faultline's version: the Maven version plus the git commit when run from a checkout. */
final class FaultlineVersion {
    private FaultlineVersion() {}

    static String get() {
        String version = FaultlineVersion.class.getPackage().getImplementationVersion();
        if (version == null) version = "0.1.0-SNAPSHOT";
        String commit = gitCommit();
        return commit == null ? version : version + " (" + commit + ")";
    }

    private static String gitCommit() {
        String root = System.getProperty("faultline.projectRoot", ".");
        try {
            Path head = Path.of(root, ".git", "HEAD");
            if (!Files.exists(head)) return null;
            String ref = Files.readString(head).trim();
            if (!ref.startsWith("ref: ")) return ref.substring(0, Math.min(12, ref.length()));
            Path refFile = Path.of(root, ".git", ref.substring(5));
            return Files.exists(refFile) ? Files.readString(refFile).trim().substring(0, 12) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
