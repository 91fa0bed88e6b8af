package io.faultline.harness;

import io.faultline.docker.sut.ApacheKafka;
import io.faultline.docker.sut.BrokerImpl;
import io.faultline.docker.sut.KafkaSettings;
import io.faultline.docker.sut.SystemUnderTest;

import java.util.List;
import java.util.function.Function;

/** The systems under test `--sut` names, and what each can do; the one place that lists them. */
final class Suts {
    private Suts() {}

    /**
     * @param transactions whether the system has Kafka transactions (txn-queue needs them)
     */
    record Sut(String name, boolean transactions, Function<KafkaSettings, SystemUnderTest> create) {}

    static final List<Sut> ALL = List.of(
            new Sut("apache-kafka", true, ApacheKafka::new),
            new Sut("broker-impl", false, BrokerImpl::new));

    static final List<String> NAMES = ALL.stream().map(Sut::name).toList();

    /** The named system; an unknown name is one line listing the known ones. */
    static Sut named(String name) {
        for (Sut s : ALL) if (s.name().equals(name)) return s;
        throw new IllegalArgumentException("--sut must be " + Workloads.either(NAMES) + ", got " + name);
    }

    static boolean known(String name) {
        return NAMES.contains(name);
    }
}
