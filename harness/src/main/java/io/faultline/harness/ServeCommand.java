package io.faultline.harness;

import io.faultline.results.StoreServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** `faultline serve`: a web index of the run store on 127.0.0.1. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve the run store on 127.0.0.1: runs newest first, reports, histories, campaigns.")
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--port", description = "Port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE})")
    int port = 8080;

    @Option(names = "--store", description = "Run store folder (default: ${DEFAULT-VALUE})")
    Path store = Path.of("store");

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("--port must be 0..65535, got " + port);
        Files.createDirectories(store);
        try (var server = StoreServer.start(store, port)) {
            System.out.println("faultline: serving " + store.toAbsolutePath() + " at http://127.0.0.1:" + server.port() + "/ (Ctrl-C stops)");
            Thread.currentThread().join();
        }
        return FaultlineCli.EXIT_VALID;
    }
}
