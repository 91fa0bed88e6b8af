package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataRecord;
import java.util.List;

/** A decision of the controller: records to commit, and the response to send once they are committed. */
public record ControllerResult<T>(List<MetadataRecord> records, T response) {
    public ControllerResult {
        records = List.copyOf(records);
    }

    public static <T> ControllerResult<T> of(T response) {
        return new ControllerResult<>(List.of(), response);
    }
}
