package io.faultline.harness;

import io.faultline.docker.sut.ApacheKafka;
import io.faultline.docker.sut.BrokerDescriptor;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.DescribedBroker;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.KafkaVersion;
import io.faultline.docker.sut.SystemUnderTest;
import io.faultline.kafkacompat.KafkaClientLine;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * The systems under test `--sut` names, and what each can do; the one place that lists them. Besides the fixed
 * names, {@code apache-kafka:VERSION} is any Apache Kafka release on Maven Central, and
 * {@code apache-kafka:VERSION:zk|kraft} the same in a chosen metadata mode (`--metadata` writes that suffix), and
 * {@code file:PATH} any Kafka-protocol broker a descriptor file describes (docs/your-broker.md).
 */
final class Suts {
    private Suts() {}

    static final String APACHE_KAFKA = "apache-kafka";

    /**
     * @param transactions whether the system has Kafka transactions (txn-queue needs them)
     * @param clientLine   the kafka-clients line its workloads use
     */
    record Sut(String name, boolean transactions, Function<KafkaSettings, SystemUnderTest> create, KafkaClientLine clientLine) {}

    static final List<Sut> ALL = List.of(
            new Sut(APACHE_KAFKA, true, ApacheKafka::new, KafkaClientLine.CURRENT),
            new Sut("broker-impl", true, BrokerImpl::new, KafkaClientLine.CURRENT));

    static final List<String> NAMES = ALL.stream().map(Sut::name).toList();

    /** The named system; an unknown name is one line listing the known ones. */
    static Sut named(String name) {
        for (Sut s : ALL) if (s.name().equals(name)) return s;
        if (name != null && name.startsWith(APACHE_KAFKA + ":")) return versioned(name);
        if (name != null && name.startsWith(BrokerDescriptor.SUT_PREFIX)) return described(name);
        throw new IllegalArgumentException("--sut must be " + Workloads.either(NAMES) + ", got " + name + " (or "
                + APACHE_KAFKA + ":VERSION, e.g. apache-kafka:0.11.0.3, or file:PATH of a broker descriptor)");
    }

    /** apache-kafka:VERSION[:zk|kraft]; a release or mode that does not exist is one line. */
    private static Sut versioned(String name) {
        String[] parts = name.split(":", -1);
        if (parts.length > 3) throw new IllegalArgumentException("--sut apache-kafka:VERSION[:zk|kraft], got " + name);
        KafkaVersion version = KafkaVersion.parse(parts[1]);
        KafkaVersion.Metadata metadata = parts.length == 3 ? KafkaVersion.Metadata.parse(parts[2]) : null;
        version.metadata(metadata); // refuses a mode the release lacks, before any cluster
        return new Sut(name, version.atLeast("0.11"), s -> new ApacheKafka(s, version, metadata), version.clientLine());
    }

    /** file:PATH: the descriptor is read and checked now, so a bad one is one line before any cluster starts. */
    private static Sut described(String name) {
        String path = name.substring(BrokerDescriptor.SUT_PREFIX.length());
        if (path.isBlank()) throw new IllegalArgumentException("--sut file:PATH needs the path of a broker descriptor");
        BrokerDescriptor d = BrokerDescriptor.load(Path.of(path));
        return new Sut(name, d.transactions(), s -> DescribedBroker.of(d, s), d.clientLine());
    }

    /**
     * The system's name as it may appear in a file or folder name: a descriptor's path loses its separators
     * (file:examples/brokers/x/broker.properties becomes file:examples_brokers_x_broker.properties).
     */
    static String label(String sut) {
        return sut.startsWith(BrokerDescriptor.SUT_PREFIX) ? sut.replaceAll("[^A-Za-z0-9._:+-]", "_") : sut;
    }

    /** The system with `--metadata` applied: only Apache Kafka has a choice. */
    static String withMetadata(String sut, String metadata) {
        if (metadata == null) return sut;
        KafkaVersion.Metadata m = KafkaVersion.Metadata.parse(metadata);
        if (!sut.equals(APACHE_KAFKA) && !sut.startsWith(APACHE_KAFKA + ":")) {
            throw new IllegalArgumentException("--metadata applies to apache-kafka only, not " + sut);
        }
        String[] parts = sut.split(":");
        String version = parts.length > 1 ? parts[1] : ApacheKafka.VERSION;
        String out = APACHE_KAFKA + ":" + version + ":" + m.flag();
        named(out);
        return out;
    }

    /**
     * Whether the system speaks the 0.11 protocol additions (KIP-98): idempotent producers, transactions and
     * read_committed consumers. Apache Kafka before 0.11 does not; broker-impl answers read_committed fetches.
     */
    static boolean hasTransactionalProtocol(String name) {
        if (!name.startsWith(APACHE_KAFKA + ":")) return true;
        return KafkaVersion.parse(name.split(":")[1]).atLeast("0.11");
    }

    /**
     * Whether OffsetFetch can ask for stable offsets (require_stable, OffsetFetch v7: Kafka 2.5, KIP-447), as Kafka's
     * own consumer always does where the broker knows it. Assumed for broker-impl and for described brokers.
     */
    static boolean hasStableOffsetFetch(String name) {
        if (!name.startsWith(APACHE_KAFKA + ":")) return true;
        return KafkaVersion.parse(name.split(":")[1]).atLeast("2.5");
    }

    /**
     * unclean.leader.election.enable where a run does not set it: the release's own default for apache-kafka:VERSION
     * (true before 0.11, KIP-106), false for the reference release and broker-impl.
     */
    static boolean uncleanByDefault(String name) {
        if (!name.startsWith(APACHE_KAFKA + ":")) return false;
        return KafkaVersion.parse(name.split(":")[1]).uncleanElectionByDefault();
    }

    /**
     * Prefixes of the system's own classes, which the node-logs check attributes exceptions to: broker-impl's package,
     * Apache Kafka's (its broker code and the clients code it embeds); none for a broker from a descriptor (not judged).
     */
    static List<String> codePackages(String name) {
        if (name.equals("broker-impl")) return List.of("io.faultline.broker.");
        if (name.equals(APACHE_KAFKA) || name.startsWith(APACHE_KAFKA + ":")) return List.of("kafka.", "org.apache.kafka.");
        return List.of();
    }

    /** The kafka-clients line of the named system's workloads. */
    static KafkaClientLine clientLine(String name) {
        return named(name).clientLine();
    }

    static boolean known(String name) {
        try {
            named(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
