package io.faultline.nemesis.disk;

import io.faultline.nemesis.process.Target;

/** The closed set of storage faults. Each is applied to one partition directory of each (permitted) target. */
public sealed interface DiskFault {
    Target target();

    /** Cuts the last {@code bytes} off the newest segment file: a torn write, or data never flushed. */
    record Truncate(Target target, long bytes) implements DiskFault {}

    /**
     * Zeroes the last {@code bytes} of the newest segment file, keeping its length: a power cut after the file grew
     * (the size is metadata, journaled) but before its last page reached the disk. The last batch keeps its header
     * and length and fails its CRC. {@code partition} names the partition directory whose newest segment is torn
     * (the one being written, where a torn write lands); null tears a partition drawn at random.
     */
    record Tear(Target target, long bytes, String partition) implements DiskFault {
        public Tear(Target target, long bytes) {
            this(target, bytes, null);
        }
    }

    /** Inverts {@code bits} distinct random bits of the newest segment file. */
    record BitFlip(Target target, int bits) implements DiskFault {}

    /** Removes the offset and time index files of a partition, so recovery must rebuild them. */
    record DeleteIndex(Target target) implements DiskFault {}
}
