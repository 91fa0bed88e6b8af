package io.faultline.broker.network;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One parsed request on its way from a {@link Processor} to the I/O threads.
 *
 * @param body parsed body; null only for an ApiVersions request whose version we do not support (answered at v0)
 */
public record Request(int processorId, String connectionId, RequestHeader header, AbstractRequest body,
                      long receivedNanos, String clientHost) {

    public ApiKeys apiKey() {
        return header.apiKey();
    }

    public short version() {
        return header.apiVersion();
    }

    @SuppressWarnings("unchecked")
    public <T> T data() {
        return (T) body.data();
    }

    @Override
    public String toString() {
        return header.apiKey() + " v" + header.apiVersion() + " correlation " + header.correlationId() + " from "
                + connectionId + " (" + header.clientId() + ")";
    }
}
