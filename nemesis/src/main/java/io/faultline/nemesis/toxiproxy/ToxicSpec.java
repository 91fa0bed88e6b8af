package io.faultline.nemesis.toxiproxy;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One toxic of a proxy as the API shows it: {"name", "type", "stream", "toxicity", "attributes"}.
 *
 * @param stream   "upstream" (client to server) or "downstream" (server to client)
 * @param toxicity probability that the toxic applies to a connection, drawn once per connection
 */
@JsonPropertyOrder({"attributes", "name", "type", "stream", "toxicity"})
public record ToxicSpec(String name, String type, String stream, float toxicity, ToxicAttributes attributes) {
    public ToxicSpec {
        if (name == null || name.isEmpty()) throw ApiError.missingField("name");
        if (ToxicAttributes.typeClass(type) == null) throw ApiError.invalidType();
        if (!"upstream".equals(stream) && !"downstream".equals(stream)) throw ApiError.invalidStream();
        if (attributes == null || attributes.getClass() != ToxicAttributes.typeClass(type)) {
            throw new IllegalArgumentException("attributes " + attributes + " do not fit type " + type);
        }
    }

    public boolean upstream() {
        return "upstream".equals(stream);
    }

    ToxicSpec with(float newToxicity, ToxicAttributes newAttributes) {
        return new ToxicSpec(name, type, stream, newToxicity, newAttributes);
    }
}
