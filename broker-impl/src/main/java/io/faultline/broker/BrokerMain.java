package io.faultline.broker;

import io.faultline.broker.common.FatalErrorHandler;
import io.faultline.broker.common.Time;
import io.faultline.broker.config.BrokerConfig;
import io.faultline.broker.server.KafkaBroker;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -cp ... io.faultline.broker.BrokerMain server.properties}: runs one broker until SIGTERM, then shuts
 * down cleanly (flush, checkpoints, clean-shutdown marker).
 */
public final class BrokerMain {
    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: BrokerMain <server.properties>");
            System.exit(2);
        }
        // Any throwable escaping any broker thread halts the process (see FatalErrorHandler).
        Thread.setDefaultUncaughtExceptionHandler(FatalErrorHandler.halting());
        BrokerConfig config = BrokerConfig.load(Path.of(args[0]));
        KafkaBroker broker;
        try {
            broker = new KafkaBroker(config, Time.SYSTEM).start();
        } catch (Throwable e) {
            // Once registered, a node that failed to start would stay registered (and in every ISR) without ever
            // binding its ports: halt, so its session expires and the controller fences it.
            FatalErrorHandler.halting().fatal("start-up", e);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "shutdown"));
        stopped.await();
    }
}
