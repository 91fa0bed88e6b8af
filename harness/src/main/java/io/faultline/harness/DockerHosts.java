package io.faultline.harness;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * `campaign --docker-hosts`: the Docker engines a campaign spreads its runs over, and which run goes where.
 *
 * <p>Testcontainers and docker-java pick their engine once per JVM (DockerClientFactory is a singleton that reads
 * DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH when first used), so a run on another engine runs in a child
 * JVM with DOCKER_HOST set ({@link CampaignChild}); its whole cluster, images included, lives on that engine.
 */
record DockerHosts(List<String> urls) {
    DockerHosts {
        if (urls == null || urls.isEmpty()) {
            throw new IllegalArgumentException("--docker-hosts needs at least one engine URL");
        }
        var seen = new LinkedHashSet<String>();
        for (String u : urls) {
            check(u);
            if (!seen.add(u)) throw new IllegalArgumentException("--docker-hosts lists " + u + " twice");
        }
        urls = List.copyOf(urls);
    }

    /** A DOCKER_HOST value docker-java understands: unix:///path or tcp://host:port. */
    static void check(String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--docker-hosts: not a URL: " + url);
        }
        String scheme = uri.getScheme();
        if ("unix".equals(scheme)) {
            if (uri.getPath() == null || uri.getPath().isEmpty() || uri.getHost() != null) {
                throw new IllegalArgumentException("--docker-hosts: a socket is written unix:///path/to/docker.sock, got " + url);
            }
        } else if ("tcp".equals(scheme)) {
            if (uri.getHost() == null || uri.getPort() < 1) {
                throw new IllegalArgumentException("--docker-hosts: a remote engine is written tcp://host:port, got " + url);
            }
        } else {
            throw new IllegalArgumentException("--docker-hosts: engine URLs start with unix:// or tcp://, got " + url);
        }
    }

    /** A short name for output lines: the socket's file name, or host:port. */
    static String label(String url) {
        URI uri = URI.create(url);
        if ("tcp".equals(uri.getScheme())) return uri.getHost() + ":" + uri.getPort();
        String file = Path.of(uri.getPath()).getFileName().toString();
        return file.endsWith(".sock") ? file.substring(0, file.length() - 5) : file;
    }

    /** Run {@code index} of a campaign goes to engine {@code index mod n}: deterministic, evenly spread. */
    String engineOf(int index) {
        return urls.get(Math.floorMod(index, urls.size()));
    }

    /**
     * The run indexes each engine takes, in order (engine i runs its share one after another): engine e of N runs
     * exactly what {@code --shard e/N} would, so --docker-hosts is sharding inside one process.
     */
    List<List<Integer>> shares(int runs) {
        List<List<Integer>> out = new ArrayList<>();
        for (int e = 0; e < urls.size(); e++) out.add(new Shard(e, urls.size()).points(runs));
        return out;
    }

    /**
     * The environment of a child JVM that talks to {@code url}: DOCKER_HOST set; TLS settings kept for tcp://
     * engines (the user's DOCKER_TLS_VERIFY / DOCKER_CERT_PATH) and dropped for local sockets, which never use TLS.
     */
    static void applyTo(Map<String, String> env, String url) {
        env.put("DOCKER_HOST", url);
        if (url.startsWith("unix:")) {
            env.remove("DOCKER_TLS_VERIFY");
            env.remove("DOCKER_CERT_PATH");
        }
        // The machine's Testcontainers settings (FACTS.md) hold for every engine a campaign may use.
        env.putIfAbsent("TESTCONTAINERS_RYUK_DISABLED", "true");
        env.putIfAbsent("TESTCONTAINERS_HOST_OVERRIDE", "localhost");
    }
}
