package io.faultline.broker.replication;

import java.io.IOException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A follower's connection to one source broker's replication listener: one request at a time, answered in
 * order (a fetcher has one request outstanding). {@link BlockingKafkaClient} is the socket version; tests may
 * pass requests through {@link WireCodec} to an in-JVM broker so the bytes are the real protocol.
 */
public interface LeaderEndpoint extends AutoCloseable {
    /**
     * Sends {@code request} as {@code apiKey} at {@code version} and returns the parsed response.
     *
     * @throws IOException when the broker cannot be reached or the connection breaks; the caller backs off
     */
    ApiMessage send(ApiKeys apiKey, short version, ApiMessage request) throws IOException;

    /** Drops the connection (the next send reconnects). */
    @Override
    void close();
}
