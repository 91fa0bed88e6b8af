package io.faultline.broker.metadata;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Who a client quota applies to, as Kafka names it: one or more (entity type, name) parts, e.g. user "alice" with
 * client-id "app"; a null name is the type's default entity (kafka-configs --entity-default). Parts are kept sorted
 * by type, so equal entities are equal values whatever order a request listed them in.
 */
public record QuotaEntity(List<Part> parts) {
    /** One part; {@code name} null means the default entity of {@code type}. */
    public record Part(String type, String name) {
        public Part {
            Objects.requireNonNull(type, "type");
        }
    }

    public QuotaEntity {
        List<Part> sorted = new ArrayList<>(parts);
        sorted.sort(Comparator.comparing(Part::type));
        parts = List.copyOf(sorted);
    }

    /** Stable text form (for logs and a deterministic snapshot order). */
    @Override
    public String toString() {
        return parts.stream().map(p -> p.type() + "=" + (p.name() == null ? "<default>" : p.name()))
                .collect(Collectors.joining(","));
    }
}
