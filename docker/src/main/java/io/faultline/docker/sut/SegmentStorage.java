package io.faultline.docker.sut;

/** A system that keeps partitions as Kafka-style segment files, so disk faults can target them. */
public interface SegmentStorage {
    /** The directory inside a node holding one folder per partition, e.g. /data/kafka. */
    String logDirectory();

    /** The folder of one partition's segments inside {@link #logDirectory()}. */
    default String partitionDirectory(String topic, int partition) {
        return logDirectory() + "/" + topic + "-" + partition;
    }
}
