package io.faultline.docker.sut;

import io.faultline.kafkacompat.KafkaClientLine;

import java.util.ArrayList;
import java.util.List;

/**
 * An Apache Kafka release as published on Maven Central ("0.10.2.1", "2.0.1", "4.4.0"), with what differs between
 * release families: the Scala build to fetch, whether it keeps its metadata in ZooKeeper or KRaft, its logging
 * backend, the fixes it needs to start on Java 17, and which kafka-clients line can talk to it.
 */
public record KafkaVersion(String text, List<Integer> parts) implements Comparable<KafkaVersion> {
    /** Where metadata lives: a ZooKeeper ensemble, or the KRaft quorum. */
    public enum Metadata {
        ZK, KRAFT;

        public String flag() {
            return name().toLowerCase();
        }

        /** "zk" or "kraft"; anything else is one line naming both. */
        public static Metadata parse(String text) {
            return switch (text.strip().toLowerCase()) {
                case "zk", "zookeeper" -> ZK;
                case "kraft" -> KRAFT;
                default -> throw new IllegalArgumentException("--metadata must be zk or kraft, got " + text);
            };
        }
    }

    public KafkaVersion {
        parts = List.copyOf(parts);
    }

    /** "2.0.1" → 2.0.1; anything that is not dot-separated numbers is a one-line error. */
    public static KafkaVersion parse(String text) {
        String t = text == null ? "" : text.strip();
        if (!t.matches("\\d+(\\.\\d+){1,3}")) {
            throw new IllegalArgumentException("an Apache Kafka version is dot-separated numbers such as 0.10.2.1 or 3.9.1, got '"
                    + text + "'");
        }
        List<Integer> parts = new ArrayList<>();
        for (String p : t.split("\\.")) parts.add(Integer.parseInt(p));
        KafkaVersion v = new KafkaVersion(t, parts);
        if (v.compareTo(of("0.10.0")) < 0) {
            throw new IllegalArgumentException("Apache Kafka " + t + " is older than the oldest supported release (0.10.0)");
        }
        return v;
    }

    private static KafkaVersion of(String text) {
        List<Integer> parts = new ArrayList<>();
        for (String p : text.split("\\.")) parts.add(Integer.parseInt(p));
        return new KafkaVersion(text, parts);
    }

    public boolean atLeast(String other) {
        return compareTo(of(other)) >= 0;
    }

    @Override
    public int compareTo(KafkaVersion o) {
        for (int i = 0; i < Math.max(parts.size(), o.parts.size()); i++) {
            int a = i < parts.size() ? parts.get(i) : 0, b = i < o.parts.size() ? o.parts.get(i) : 0;
            if (a != b) return Integer.compare(a, b);
        }
        return 0;
    }

    /** The Scala build published for it: 2.11 before 2.0 (as measured on Java 17), 2.12 until 2.4, 2.13 from 2.4. */
    public String scala() {
        if (atLeast("2.4")) return "2.13";
        if (atLeast("2.0")) return "2.12";
        return "2.11";
    }

    /** KRaft is production-ready from 3.3 (KIP-833). */
    public boolean supportsKraft() {
        return atLeast("3.3");
    }

    /** ZooKeeper mode was removed in 4.0 (KIP-500). */
    public boolean supportsZooKeeper() {
        return !atLeast("4.0");
    }

    /** KRaft where it is production-ready, ZooKeeper below. */
    public Metadata defaultMetadata() {
        return supportsKraft() ? Metadata.KRAFT : Metadata.ZK;
    }

    /** The metadata mode asked for, or a one-line error when this release has no such mode. */
    public Metadata metadata(Metadata wanted) {
        if (wanted == null) return defaultMetadata();
        if (wanted == Metadata.KRAFT && !supportsKraft()) {
            throw new IllegalArgumentException("Apache Kafka " + text + " has no production KRaft mode (from 3.3): use --metadata zk");
        }
        if (wanted == Metadata.ZK && !supportsZooKeeper()) {
            throw new IllegalArgumentException("Apache Kafka " + text + " has no ZooKeeper mode (removed in 4.0): use --metadata kraft");
        }
        return wanted;
    }

    /**
     * The release's own default for unclean.leader.election.enable: true before 0.11, false from 0.11 (KIP-106), the
     * value a broker uses when server.properties does not set it.
     */
    public boolean uncleanElectionByDefault() {
        return !atLeast("0.11");
    }

    /**
     * Whether the Metadata response lists a partition's replicas in assignment order: not before 0.11, whose
     * UpdateMetadata request carries them as a set (PartitionState.replicas), so brokers answer them in hash order.
     */
    public boolean metadataKeepsReplicaOrder() {
        return atLeast("0.11");
    }

    /** Log4j 2 from 4.0; log4j 1 (or reload4j) before. */
    public boolean usesLog4j2() {
        return atLeast("4.0");
    }

    /** The kafka-clients line the workloads use against it: 4.x cannot talk to brokers older than 2.1 (KIP-896). */
    public KafkaClientLine clientLine() {
        return atLeast("2.1") ? KafkaClientLine.CURRENT : KafkaClientLine.LEGACY;
    }

    @Override
    public String toString() {
        return text;
    }
}
