package io.faultline.docker.sut;

import io.faultline.docker.NodeAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The built-in broker-impl is a bundled broker descriptor: the same form a user's broker takes. */
class BuiltInDescriptorTest {
    private static final List<NodeAddress> FIVE = List.of(new NodeAddress("n1", 1, "172.30.0.11"),
            new NodeAddress("n2", 2, "172.30.0.12"), new NodeAddress("n3", 3, "172.30.0.13"),
            new NodeAddress("n4", 4, "172.30.0.14"), new NodeAddress("n5", 5, "172.30.0.15"));

    private static Properties properties(String text) throws IOException {
        var p = new Properties();
        p.load(new java.io.StringReader(text));
        return p;
    }

    @Test
    void brokerImplIsDescribedByItsBundledDescriptor() {
        BrokerDescriptor d = BrokerImpl.bundledDescriptor();
        assertEquals("broker-impl", d.name());
        assertEquals(9092, d.port());
        assertEquals(BrokerImpl.REPLICATION_PORT, d.replicationPort(), "followers fetch on their own listener");
        assertEquals(BrokerDescriptor.Controller.METADATA, d.controller());
        assertEquals(BrokerDescriptor.BROKER_IMPL_JARS, d.context().get("libs"));
        assertEquals(List.of("/opt/broker/bin/broker-node"), d.start());
        var sut = new BrokerImpl(KafkaSettings.defaults());
        assertInstanceOf(ControllerAware.class, sut);
        assertEquals(BrokerImpl.REPLICATION_PORT, sut.replicationPort());
        assertEquals(List.of(9092, 9091, 9093, 10093), sut.peerPorts(), "link faults reach replication and the quorum");
        assertEquals("/data/broker", sut.logDirectory());
        assertEquals(List.of("/data", "/opt/broker/config/server.properties"), sut.collectedPaths());
    }

    @Test
    void aVoterAndAQuorumListenerGetTheirRolesAndListeners() throws IOException {
        var sut = new BrokerImpl(KafkaSettings.defaults().withReplicationFactor(3).withMinInsyncReplicas(2));
        Properties voter = properties(sut.renderedConfigs(FIVE.get(0), FIVE).get("/opt/broker/config/server.properties"));
        assertEquals("1", voter.getProperty("node.id"));
        assertEquals("broker,controller", voter.getProperty("process.roles"));
        assertEquals("1@172.30.0.11:9093,2@172.30.0.12:9093,3@172.30.0.13:9093", voter.getProperty("controller.quorum.voters"));
        assertEquals("4@172.30.0.14:9093,5@172.30.0.15:9093", voter.getProperty("faultline.quorum.listeners"));
        assertEquals("CLIENT://172.30.0.11:9092,REPLICATION://172.30.0.11:9091", voter.getProperty("advertised.listeners"));
        assertEquals("REPLICATION", voter.getProperty("inter.broker.listener.name"));
        assertEquals("2", voter.getProperty("min.insync.replicas"), "the run's settings are written");
        assertEquals("3", voter.getProperty("default.replication.factor"));

        Properties listener = properties(sut.renderedConfigs(FIVE.get(4), FIVE).get("/opt/broker/config/server.properties"));
        assertEquals("5", listener.getProperty("node.id"));
        assertEquals("broker", listener.getProperty("process.roles"));

        Properties alone = properties(sut.renderedConfigs(FIVE.get(0), FIVE.subList(0, 1)).get("/opt/broker/config/server.properties"));
        assertEquals("1@172.30.0.11:9093", alone.getProperty("controller.quorum.voters"));
        assertEquals("", alone.getProperty("faultline.quorum.listeners"), "no node beyond the quorum: none listed");
    }

    @Test
    void aMutantJarMustExist(@TempDir Path dir) {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new BrokerImpl(KafkaSettings.defaults(), dir.resolve("missing.jar")));
        assertTrue(e.getMessage().startsWith("--broker-jar: no such file"), e.getMessage());
    }

    /** The harness runs from jars: a bundled descriptor and its templates are read from inside one. */
    @Test
    void aBundledDescriptorIsReadFromInsideAJar(@TempDir Path dir) throws Exception {
        Path classes = Path.of(BrokerImpl.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path folder = classes.resolve(BrokerImpl.DESCRIPTOR);
        Path jar = dir.resolve("bundled.jar");
        try (OutputStream out = Files.newOutputStream(jar); var zip = new JarOutputStream(out);
             Stream<Path> files = Files.walk(folder)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                zip.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                zip.write(Files.readAllBytes(f));
                zip.closeEntry();
            }
        }
        try (var loader = new URLClassLoader(new URL[]{jar.toUri().toURL()}, null)) {
            BrokerDescriptor inJar = BrokerDescriptor.bundled(BrokerImpl.DESCRIPTOR, loader);
            BrokerDescriptor onDisk = BrokerImpl.bundledDescriptor();
            assertEquals("jar", inJar.source().toUri().getScheme());
            assertEquals(onDisk.configs(), inJar.configs());
            assertEquals(onDisk.env(), inJar.env());
            assertEquals(Map.of("Dockerfile", true, "broker-node", true), Map.of(
                    "Dockerfile", Files.isRegularFile(inJar.dockerfile().resolve("Dockerfile")),
                    "broker-node", Files.isRegularFile(inJar.dockerfile().resolve("broker-node"))));
        }
        var missing = assertThrows(IllegalStateException.class,
                () -> BrokerDescriptor.bundled("no/such/folder", getClass().getClassLoader()));
        assertFalse(missing.getMessage().contains("\n"));
    }
}
