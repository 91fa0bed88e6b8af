package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The records of one decision, with the image they lead to, so later steps of the same decision see earlier ones
 * (e.g. fence a broker, then re-elect its partitions). Records are replayed lazily, in one batch, when the image
 * is next read: a loop that adds thousands of records without reading the image costs one replay, not thousands.
 */
final class Decision {
    private final MetadataImage base;
    private MetadataImage image;
    private final List<MetadataRecord> records = new ArrayList<>();
    private final List<MetadataRecord> pending = new ArrayList<>();

    Decision(MetadataImage base) {
        this.base = base;
        this.image = base;
    }

    MetadataImage image() {
        if (!pending.isEmpty()) {
            image = image.apply(pending);
            pending.clear();
        }
        return image;
    }

    MetadataImage base() {
        return base;
    }

    void add(MetadataRecord record) {
        records.add(record);
        pending.add(record);
    }

    List<MetadataRecord> records() {
        return List.copyOf(records);
    }

    /** The result; replays what is pending first, so a decision that breaks an invariant fails here, not at commit. */
    <T> ControllerResult<T> result(T response) {
        image();
        return new ControllerResult<>(records, response);
    }
}
