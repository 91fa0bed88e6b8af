package io.faultline.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.faultline.docker.NodeImage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a run needs from this machine, each checked for real (the engine asked over its API, files looked up, the
 * disk and memory read from the kernel) and, when missing, the one line that fixes it.
 */
final class Doctor {
    static final long MIN_FREE_DISK = 5L << 30;
    static final long MIN_MEMORY = 4L << 30;
    static final int MIN_JAVA = 17;
    static final String DEFAULT_ENGINE = "unix:///var/run/docker.sock";
    private static final List<Path> LIB_DIRS = Stream.of("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib", "/lib")
            .map(Path::of).toList();

    enum Status { OK, MISSING, OPTIONAL }

    /** One line of the report: what was checked, what was found, and how to fix it when it is missing. */
    record Check(String name, Status status, String found, String fix) {
        boolean passed() {
            return status == Status.OK;
        }

        String line() {
            String mark = switch (status) {
                case OK -> "ok     ";
                case MISSING -> "MISSING";
                case OPTIONAL -> "absent ";
            };
            String text = String.format("%s  %-14s %s", mark, name, found);
            return status == Status.OK ? text : text + " -- fix: " + fix;
        }
    }

    private final Map<String, String> env;
    private final Path store;

    Doctor(Map<String, String> env, Path store) {
        this.env = env;
        this.store = store;
    }

    /** Every check, in the order a first run meets them. */
    List<Check> run() {
        var checks = new ArrayList<Check>();
        checks.add(java());
        Engine engine = Engine.at(env.getOrDefault("DOCKER_HOST", DEFAULT_ENGINE));
        checks.add(engine(engine));
        checks.add(baseImage(engine));
        checks.add(fuse());
        checks.add(disk());
        checks.add(memory());
        checks.add(chromium());
        return checks;
    }

    /** Whether everything a run may need is present (Chromium only serves the report screenshot test). */
    static boolean allRequiredPresent(List<Check> checks) {
        return checks.stream().noneMatch(c -> c.status() == Status.MISSING);
    }

    Check java() {
        int feature = Runtime.version().feature();
        String found = "Java " + Runtime.version() + " (" + System.getProperty("java.home") + ")";
        return feature >= MIN_JAVA ? ok("java", found)
                : missing("java", found + ", need " + MIN_JAVA + " or later",
                "install a JDK 17 (Debian: apt-get install -y openjdk-17-jdk-headless) and put it first on PATH");
    }

    Check engine(Engine engine) {
        // The launcher provisions only the default local engine (provision-engine.sh); another one is the user's.
        boolean local = engine.url().equals(DEFAULT_ENGINE) || engine.url().equals("unix:///run/docker.sock");
        String fix = local ? "as root on Debian, any engine-using command provisions one (bin/faultline test); elsewhere"
                + " start Docker or set DOCKER_HOST"
                : "start the engine at DOCKER_HOST=" + engine.url() + ", or unset DOCKER_HOST for the local one";
        try {
            JsonNode version = new ObjectMapper().readTree(engine.get("/version").body());
            return ok("docker engine", "Docker " + version.path("Version").asText("?") + " (API "
                    + version.path("ApiVersion").asText("?") + ") answers at " + engine.url());
        } catch (IOException | RuntimeException e) {
            return missing("docker engine", "no answer at " + engine.url() + " (" + e.getMessage() + ")", fix);
        }
    }

    Check baseImage(Engine engine) {
        // As NodeImage.baseImageName(), from the environment this check was given.
        String custom = env.getOrDefault("FAULTLINE_BASE_IMAGE", "").strip();
        String image = custom.isEmpty() ? NodeImage.DEFAULT_BASE : custom;
        String fix = !custom.isEmpty() ? "docker pull " + image
                : "bin/faultline test builds it on its first run (debootstrap + docker import, about 40 s, as root)";
        try {
            Response r = engine.get("/images/" + image + "/json");
            if (r.status() == 200) return ok("base image", image + " present");
            return missing("base image", image + " not on the engine (HTTP " + r.status() + ")", fix);
        } catch (IOException | RuntimeException e) {
            return missing("base image", image + " unknown: the engine does not answer", "start the engine first");
        }
    }

    Check fuse() {
        var absent = new ArrayList<String>();
        if (!Files.exists(Path.of("/dev/fuse"))) absent.add("/dev/fuse");
        if (onPath("fusermount").isEmpty() && onPath("fusermount3").isEmpty()) absent.add("fusermount");
        if (LIB_DIRS.stream().noneMatch(d -> Files.exists(d.resolve("libfuse.so.2")))) absent.add("libfuse2");
        if (absent.isEmpty()) return ok("fuse", "/dev/fuse, fusermount and libfuse.so.2 present");
        String fix = absent.contains("/dev/fuse")
                ? "this kernel or container has no FUSE: power-loss faults (--nemesis power) cannot run here"
                : "apt-get install -y fuse libfuse2 (as root)";
        return missing("fuse", String.join(", ", absent) + " missing (power-loss faults and the lazyfs tests)", fix);
    }

    Check disk() {
        Path here = store.toAbsolutePath();
        while (!Files.exists(here) && here.getParent() != null) here = here.getParent();
        var places = new ArrayList<Path>(List.of(here));
        if (Files.isDirectory(Path.of("/var/lib/docker"))) places.add(Path.of("/var/lib/docker"));
        var found = new ArrayList<String>();
        boolean enough = true;
        for (Path p : places) {
            try {
                long free = Files.getFileStore(p).getUsableSpace();
                found.add(gib(free) + " free at " + p);
                enough &= free >= MIN_FREE_DISK;
            } catch (IOException e) {
                found.add(p + " unreadable");
                enough = false;
            }
        }
        String text = String.join(", ", found);
        return enough ? ok("free disk", text)
                : missing("free disk", text + ", need " + gib(MIN_FREE_DISK) + " each",
                "free space there (old runs: rm -r store/<test>/<timestamp>; images: docker image prune)");
    }

    Check memory() {
        Path meminfo = Path.of("/proc/meminfo");
        try {
            long total = 0, available = 0;
            for (String line : Files.readAllLines(meminfo)) {
                String[] f = line.split("\\s+");
                if (f[0].equals("MemTotal:")) total = Long.parseLong(f[1]) << 10;
                if (f[0].equals("MemAvailable:")) available = Long.parseLong(f[1]) << 10;
            }
            String found = gib(total) + " total, " + gib(available) + " available";
            return total >= MIN_MEMORY ? ok("memory", found)
                    : missing("memory", found + ", need " + gib(MIN_MEMORY),
                    "use fewer nodes (--nodes 3 needs about 1 GiB for the nodes plus 2 GiB for the harness)");
        } catch (IOException | RuntimeException e) {
            return missing("memory", "cannot read " + meminfo, "run on Linux");
        }
    }

    Check chromium() {
        Path path = Path.of(System.getProperty("faultline.chromium", "/usr/bin/chromium"));
        if (Files.isExecutable(path)) return ok("chromium", path + " (report screenshots)");
        return new Check("chromium", Status.OPTIONAL, path + " absent (only the report screenshot test uses it)",
                "apt-get install -y chromium (as root)");
    }

    private List<Path> onPath(String program) {
        return Stream.of(env.getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":"))
                .filter(d -> !d.isEmpty()).map(d -> Path.of(d, program)).filter(Files::isExecutable).toList();
    }

    private static String gib(long bytes) {
        return String.format("%.1f GiB", bytes / (double) (1L << 30));
    }

    private static Check ok(String name, String found) {
        return new Check(name, Status.OK, found, "");
    }

    private static Check missing(String name, String found, String fix) {
        return new Check(name, Status.MISSING, found, fix);
    }

    record Response(int status, String body) {}

    /** Docker's HTTP API over its socket (unix://) or plain TCP (tcp://), enough for two GETs. */
    record Engine(String url) {
        static Engine at(String url) {
            return new Engine(url);
        }

        Response get(String path) throws IOException {
            String request = "GET " + path + " HTTP/1.0\r\nHost: docker\r\n\r\n";
            CompletableFuture<byte[]> exchange = CompletableFuture.supplyAsync(() -> {
                try {
                    return exchange(request.getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            byte[] raw;
            try {
                raw = exchange.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                exchange.cancel(true);
                throw new IOException("no reply within 10 s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable cause = e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : e.getCause();
                throw new IOException(cause.getMessage() == null ? cause.toString() : cause.getMessage());
            }
            String text = new String(raw, StandardCharsets.UTF_8);
            int headerEnd = text.indexOf("\r\n\r\n");
            String[] statusLine = text.substring(0, Math.max(0, text.indexOf("\r\n"))).split(" ");
            if (headerEnd < 0 || statusLine.length < 2) throw new IOException("not an HTTP reply");
            return new Response(Integer.parseInt(statusLine[1]), text.substring(headerEnd + 4));
        }

        private byte[] exchange(byte[] request) throws IOException {
            URI uri = URI.create(url);
            if ("unix".equals(uri.getScheme())) {
                try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    ch.connect(UnixDomainSocketAddress.of(uri.getPath()));
                    ch.write(ByteBuffer.wrap(request));
                    return Channels.newInputStream(ch).readAllBytes();
                }
            }
            if ("tcp".equals(uri.getScheme()) && uri.getPort() > 0) {
                if ("1".equals(System.getenv("DOCKER_TLS_VERIFY"))) {
                    throw new IOException("a TLS engine is not checked here; try: docker info");
                }
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
                    s.setSoTimeout(10_000);
                    OutputStream out = s.getOutputStream();
                    out.write(request);
                    out.flush();
                    InputStream in = s.getInputStream();
                    var buf = new ByteArrayOutputStream();
                    in.transferTo(buf);
                    return buf.toByteArray();
                }
            }
            throw new IOException("unsupported DOCKER_HOST " + url);
        }
    }
}
