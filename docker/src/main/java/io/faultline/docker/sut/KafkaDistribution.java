package io.faultline.docker.sut;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The jars of one Apache Kafka release, fetched from Maven Central once and kept in a cache folder
 * (~/.cache/faultline/apache-kafka/VERSION, or -Dfaultline.kafka.cache=DIR): the broker's own dependencies plus
 * what it needs to run on Java 17. The fetch is Maven itself (the project's wrapper) over a generated pom, so it
 * honours the user's local repository and mirrors; once cached, images build offline.
 */
public final class KafkaDistribution {
    /** DatatypeConverter left the JDK in 11; brokers before 3.0 (and their zkclient) still call it. */
    static final String JAXB = "javax.xml.bind:jaxb-api:2.3.1";
    /** ZooKeeper 3.4.13/3.4.14 clients cannot connect on Java 14+ (ZOOKEEPER-3779); 3.4.9's can. */
    static final String ZOOKEEPER_FIX = "org.apache.zookeeper:zookeeper:3.4.9";
    /** Brokers 2.0-3.9 bring no logging backend to their log4j 1 calls: reload4j (log4j 1.2 API) and its binding. */
    static final List<String> LOG4J1 = List.of("ch.qos.reload4j:reload4j:1.2.25", "org.slf4j:slf4j-reload4j:1.7.36");
    /** 4.x logs through log4j 2 with an slf4j 1.x binding (FACTS.md). */
    static final List<String> LOG4J2 = List.of("org.apache.logging.log4j:log4j-core:2.24.3",
            "org.apache.logging.log4j:log4j-slf4j-impl:2.24.3");

    private KafkaDistribution() {}

    /** The folder of jars for {@code version}: the build's own for the reference release, else the cache (fetched now if missing). */
    public static Path libs(KafkaVersion version) {
        if (version.text().equals(ApacheKafka.VERSION)) return ApacheKafka.libsDirectory();
        Path dir = cacheRoot().resolve(version.text());
        Path libs = dir.resolve("libs");
        if (Files.isRegularFile(dir.resolve(".complete"))) return libs;
        synchronized (KafkaDistribution.class) {
            if (!Files.isRegularFile(dir.resolve(".complete"))) fetch(version, dir);
        }
        return libs;
    }

    static Path cacheRoot() {
        String explicit = System.getProperty("faultline.kafka.cache");
        if (explicit != null) return Path.of(explicit);
        return Path.of(System.getProperty("user.home"), ".cache", "faultline", "apache-kafka");
    }

    /** Whether the release's own ZooKeeper client is one of those that fail on Java 14+. */
    static boolean needsZooKeeperSwap(KafkaVersion v) {
        return v.atLeast("2.0") && !v.atLeast("2.4"); // 2.0-2.3 ship 3.4.13/3.4.14; 2.4 moved to 3.5
    }

    /** The pom whose runtime dependencies are exactly the node's class path. */
    static String pom(KafkaVersion v) {
        var deps = new StringBuilder();
        String exclusions = needsZooKeeperSwap(v)
                ? "<exclusions><exclusion><groupId>org.apache.zookeeper</groupId><artifactId>zookeeper</artifactId></exclusion></exclusions>"
                : "";
        deps.append(dependency("org.apache.kafka:kafka_" + v.scala() + ":" + v.text(), exclusions));
        // The workloads talk to this broker through a client of their own; the broker's own is the one it ships with.
        if (needsZooKeeperSwap(v)) {
            deps.append(dependency(ZOOKEEPER_FIX, "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>"));
        }
        if (!v.atLeast("3.0")) deps.append(dependency(JAXB, ""));
        if (v.usesLog4j2()) {
            for (String d : LOG4J2) deps.append(dependency(d, ""));
        } else if (v.atLeast("2.0")) {
            for (String d : LOG4J1) deps.append(dependency(d, ""));
        } // before 2.0 the broker brings log4j 1.2.17 and slf4j-log4j12 itself
        return """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>io.faultline.generated</groupId>
                  <artifactId>apache-kafka-node</artifactId>
                  <version>%s</version>
                  <dependencies>
                %s  </dependencies>
                </project>
                """.formatted(v.text(), deps);
    }

    private static String dependency(String gav, String exclusions) {
        String[] p = gav.split(":");
        return "    <dependency><groupId>" + p[0] + "</groupId><artifactId>" + p[1] + "</artifactId><version>" + p[2]
                + "</version>" + exclusions + "</dependency>\n";
    }

    private static void fetch(KafkaVersion v, Path dir) {
        Path mvnw = projectRoot().resolve("mvnw");
        try {
            Files.createDirectories(dir);
            Path work = Files.createTempDirectory(dir, "fetch-");
            Files.writeString(work.resolve("pom.xml"), pom(v));
            Path log = dir.resolve("fetch.log");
            List<String> cmd = new ArrayList<>(List.of(mvnw.toString(), "-B", "-q", "-f", work.resolve("pom.xml").toString(),
                    "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies",
                    "-DincludeScope=runtime", "-DoutputDirectory=" + work.resolve("libs")));
            Process p = new ProcessBuilder(cmd).directory(projectRoot().toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            if (!p.waitFor(15, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("fetching Apache Kafka " + v + " from Maven Central took over 15 minutes (log: " + log + ")");
            }
            if (p.exitValue() != 0) {
                List<String> lines = Files.readAllLines(log);
                String last = lines.stream().filter(l -> l.contains("ERROR")).findFirst().orElse(lines.isEmpty() ? "" : lines.get(lines.size() - 1));
                throw new IllegalArgumentException("could not fetch Apache Kafka " + v + " (org.apache.kafka:kafka_" + v.scala()
                        + ") from Maven Central: " + last.strip() + " (log: " + log + ")");
            }
            Files.writeString(work.resolve("libs").resolve("faultline-source.pom.xml.txt"), pom(v));
            Path libs = dir.resolve("libs");
            if (Files.exists(libs)) deleteTree(libs);
            Files.move(work.resolve("libs"), libs, StandardCopyOption.ATOMIC_MOVE);
            deleteTree(work);
            Files.writeString(dir.resolve(".complete"), v.text() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("fetching Apache Kafka " + v + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while fetching Apache Kafka " + v, e);
        }
    }

    private static Path projectRoot() {
        String root = System.getProperty("faultline.projectRoot");
        for (Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docker"))) return dir;
        }
        throw new IllegalStateException("cannot fetch Apache Kafka jars: the Faultline project (its mvnw) was not found;"
                + " run from the project or pass -Dfaultline.projectRoot=DIR");
    }

    private static void deleteTree(Path p) throws IOException {
        try (var walk = Files.walk(p)) {
            for (Path x : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(x);
        }
    }
}
