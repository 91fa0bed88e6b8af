/**
 * The cluster metadata model: a closed set of {@link io.faultline.broker.metadata.MetadataRecord}s, the immutable
 * {@link io.faultline.broker.metadata.MetadataImage} they replay into (pure and deterministic, invariants checked
 * on replay), the {@link io.faultline.broker.metadata.MetadataDelta} between two images (what each broker must
 * lead, follow or delete), and their stable binary form ({@link io.faultline.broker.metadata.MetadataSerde}) used
 * for Raft log entries and snapshots. {@code TopicInfo} and {@code TopicRegistry} are the single-node catalogue
 * that the broker retires in favour of the image.
 */
package io.faultline.broker.metadata;
