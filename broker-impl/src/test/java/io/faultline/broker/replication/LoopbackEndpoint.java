package io.faultline.broker.replication;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * An in-JVM {@link LeaderEndpoint}: every request and response goes through the real wire format
 * ({@link WireCodec}) to the leader's {@link ReplicaRequestHandler}. A test can cut the link (IOException, as a
 * dropped connection) or point it at a broker that is down (the supplier answers null).
 */
final class LoopbackEndpoint implements LeaderEndpoint {
    private final Supplier<ReplicaRequestHandler> target;
    private volatile boolean cut;
    private volatile boolean dropResponses;
    private int correlationId;

    LoopbackEndpoint(Supplier<ReplicaRequestHandler> target) {
        this.target = target;
    }

    void cut(boolean cut) {
        this.cut = cut;
    }

    /** Requests still reach the leader (and update its view of us) but the answers are lost. */
    void dropResponses(boolean drop) {
        this.dropResponses = drop;
    }

    @Override
    public synchronized ApiMessage send(ApiKeys apiKey, short version, ApiMessage request) throws IOException {
        ReplicaRequestHandler handler = target.get();
        if (cut || handler == null) throw new IOException("link down");
        int corr = ++correlationId;
        ByteBuffer req = WireCodec.encodeRequest(apiKey, version, "test-fetcher", corr, request);
        req.getInt(); // size prefix
        WireCodec.DecodedRequest decoded = WireCodec.decodeRequest(req.slice());
        ApiMessage answer = handler.handle(decoded.apiKey(), decoded.version(), decoded.body());
        if (dropResponses) throw new IOException("response lost");
        ByteBuffer resp = WireCodec.encodeResponse(apiKey, version, decoded.header().correlationId(), answer);
        resp.getInt();
        return WireCodec.decodeResponse(apiKey, version, corr, resp.slice());
    }

    @Override
    public void close() {
    }
}
