package io.faultline.nemesis.toxiproxy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The attributes of each toxic type, named and typed as Toxiproxy 2.x names them. Times are milliseconds except
 * the slicer's delay (microseconds, as in Toxiproxy); bandwidth's rate is KB/s. Unknown attribute names are
 * ignored and missing ones are zero, as Go's JSON decoding does.
 */
public sealed interface ToxicAttributes {
    /** Each chunk waits latency ± jitter ms (uniform) before it is passed on, in order. */
    record Latency(long latency, long jitter) implements ToxicAttributes {}

    /** At most rate KB/s; rate <= 0 passes everything. */
    record Bandwidth(long rate) implements ToxicAttributes {}

    /** Data passes; the close waits delay ms. */
    record SlowClose(long delay) implements ToxicAttributes {}

    /** Data is dropped; the connection closes after timeout ms without data (0: held open until removed). */
    record Timeout(long timeout) implements ToxicAttributes {}

    /** At the first data, waits timeout ms and resets the connection (RST), dropping the data. */
    record ResetPeer(long timeout) implements ToxicAttributes {}

    /** Cuts each chunk into pieces of about average_size ± size_variation bytes, delay µs apart. */
    record Slicer(@JsonProperty("average_size") int averageSize, @JsonProperty("size_variation") int sizeVariation,
                  int delay) implements ToxicAttributes {}

    /** Passes the first bytes bytes of the stream, then closes the connection. */
    record LimitData(long bytes) implements ToxicAttributes {}

    ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, false);

    /** The record class of a Toxiproxy type name, or null when Toxiproxy has no such type. */
    static Class<? extends ToxicAttributes> typeClass(String type) {
        if (type == null) return null;
        return switch (type) {
            case "latency" -> Latency.class;
            case "bandwidth" -> Bandwidth.class;
            case "slow_close" -> SlowClose.class;
            case "timeout" -> Timeout.class;
            case "reset_peer" -> ResetPeer.class;
            case "slicer" -> Slicer.class;
            case "limit_data" -> LimitData.class;
            default -> null;
        };
    }

    /** Parses attributes of a type; a missing node gives all-zero attributes. */
    static ToxicAttributes parse(String type, JsonNode attributes) {
        Class<? extends ToxicAttributes> cls = typeClass(type);
        if (cls == null) throw ApiError.invalidType();
        JsonNode node = attributes == null || attributes.isNull() ? JSON.createObjectNode() : attributes;
        if (!node.isObject()) throw ApiError.badBody("attributes must be an object");
        try {
            return JSON.treeToValue(node, cls);
        } catch (Exception e) {
            throw ApiError.badBody(e.getMessage());
        }
    }

    /** These attributes with the fields present in {@code update} replaced (Toxiproxy decodes into the old ones). */
    default ToxicAttributes merge(String type, JsonNode update) {
        if (update == null || update.isNull()) return this;
        if (!update.isObject()) throw ApiError.badBody("attributes must be an object");
        ObjectNode merged = JSON.valueToTree(this);
        merged.setAll((ObjectNode) update);
        return parse(type, merged);
    }
}
