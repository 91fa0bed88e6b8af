package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The records of one decision, with the image they lead to: each record is replayed as soon as it is added, so
 * later steps of the same decision see earlier ones (e.g. fence a broker, then re-elect its partitions).
 */
final class Decision {
    private final MetadataImage base;
    private MetadataImage image;
    private final List<MetadataRecord> records = new ArrayList<>();

    Decision(MetadataImage base) {
        this.base = base;
        this.image = base;
    }

    MetadataImage image() {
        return image;
    }

    MetadataImage base() {
        return base;
    }

    void add(MetadataRecord record) {
        image = image.apply(List.of(record));
        records.add(record);
    }

    List<MetadataRecord> records() {
        return List.copyOf(records);
    }

    <T> ControllerResult<T> result(T response) {
        return new ControllerResult<>(records, response);
    }
}
