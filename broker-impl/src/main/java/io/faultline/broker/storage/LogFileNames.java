package io.faultline.broker.storage;

import java.nio.file.Path;

/** Kafka's on-disk file names: a 20-digit zero-padded base offset plus a suffix. Stateless. */
final class LogFileNames {
    static final String LOG = ".log";
    static final String INDEX = ".index";
    static final String TIME_INDEX = ".timeindex";
    static final String DELETED = ".deleted";
    static final String CLEANED = ".cleaned";
    static final String SWAP = ".swap";
    static final String LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint";

    private LogFileNames() {
    }

    /** Parses {@code <topic>-<partition>} from a partition directory name. */
    static org.apache.kafka.common.TopicPartition topicPartitionOf(Path dir) {
        String name = dir.getFileName().toString();
        int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            throw new IllegalArgumentException("not a <topic>-<partition> directory: " + dir);
        }
        return new org.apache.kafka.common.TopicPartition(name.substring(0, dash), Integer.parseInt(name.substring(dash + 1)));
    }

    /** Directory name for a partition: {@code <topic>-<partition>}. */
    static String dirName(org.apache.kafka.common.TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
    }

    static String filenamePrefix(long offset) {
        return String.format("%020d", offset);
    }

    static Path logFile(Path dir, long base) {
        return dir.resolve(filenamePrefix(base) + LOG);
    }

    static Path indexFile(Path dir, long base) {
        return dir.resolve(filenamePrefix(base) + INDEX);
    }

    static Path timeIndexFile(Path dir, long base) {
        return dir.resolve(filenamePrefix(base) + TIME_INDEX);
    }

    /** Base offset of a file named {@code <20 digits>.<suffix>[.<suffix>]}, or -1 if the name is not one. */
    static long baseOffsetOf(Path file) {
        String name = file.getFileName().toString();
        int dot = name.indexOf('.');
        if (dot != 20) return -1;
        for (int i = 0; i < 20; i++) if (!Character.isDigit(name.charAt(i))) return -1;
        try {
            return Long.parseLong(name.substring(0, 20));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
