package io.faultline.broker.controller;

import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;

/**
 * Told about every committed metadata change, on one thread, in commit order. Called once when added (or at
 * start) with the delta from {@link MetadataImage#EMPTY} to the image restored from snapshot + log.
 * Implementations must not block for long: they hold up every later notification.
 */
@FunctionalInterface
public interface MetadataListener {
    void onCommit(MetadataDelta delta, MetadataImage image);
}
