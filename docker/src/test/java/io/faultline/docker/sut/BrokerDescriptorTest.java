package io.faultline.docker.sut;

import io.faultline.docker.NodeAddress;
import io.faultline.kafkacompat.KafkaClientLine;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading and checking broker descriptors: the shipped worked example, and one-line errors naming the bad field. */
class BrokerDescriptorTest {
    private static final List<NodeAddress> FOUR = List.of(new NodeAddress("n1", 1, "172.30.0.11"),
            new NodeAddress("n2", 2, "172.30.0.12"), new NodeAddress("n3", 3, "172.30.0.13"),
            new NodeAddress("n4", 4, "172.30.0.14"));

    @TempDir
    Path dir;

    /** The worked example of docs/your-broker.md, found from the project root. */
    static Path workedExample() {
        String root = System.getProperty("faultline.projectRoot");
        for (Path d = root != null ? Path.of(root) : Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("examples/brokers/apache-kafka-4.4.0/broker.properties");
            if (Files.isRegularFile(p)) return p;
        }
        throw new IllegalStateException("examples/brokers/apache-kafka-4.4.0/broker.properties not found");
    }

    @Test
    void theWorkedExampleDescribesApacheKafkaInKraftMode() {
        BrokerDescriptor d = BrokerDescriptor.load(workedExample());
        assertEquals("kafka-4.4-descriptor", d.name());
        assertEquals("4.4.0", d.version());
        assertEquals(List.of("/opt/kafka/start-node"), d.start());
        assertEquals(BrokerDescriptor.Controller.QUORUM, d.controller());
        assertEquals(BrokerDescriptor.Readiness.ADMIN, d.ready());
        assertEquals("/data/kafka", d.dataDir());
        assertEquals(List.of("/logs", "/data", "/opt/kafka/server.properties"), d.collect());
        assertEquals("apache-kafka-jars:4.4.0", d.context().get("libs"));
        assertTrue(d.transactions());
        assertEquals(KafkaClientLine.CURRENT, d.clientLine());
        assertInstanceOf(ControllerAware.class, DescribedBroker.of(d, KafkaSettings.defaults()));
    }

    @Test
    void theWorkedExampleRendersAVoterAndABrokerOnlyNode() {
        var sut = DescribedBroker.of(BrokerDescriptor.load(workedExample()), KafkaSettings.defaults().withMinInsyncReplicas(1)
                .withProperty("num.replica.fetchers", "2"));
        String voter = sut.renderedConfigs(FOUR.get(1), FOUR).get("/opt/kafka/server.properties");
        assertTrue(voter.contains("\nnode.id=2\n"), voter);
        assertTrue(voter.contains("\nprocess.roles=broker,controller\n"), voter);
        assertTrue(voter.contains("\ncontroller.quorum.voters=1@172.30.0.11:9093,2@172.30.0.12:9093,3@172.30.0.13:9093\n"), voter);
        assertTrue(voter.contains("\nlisteners=PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093\n"), voter);
        assertTrue(voter.contains("\nadvertised.listeners=PLAINTEXT://172.30.0.12:9092\n"), voter);
        // the run's settings arrive as Kafka properties
        assertTrue(voter.contains("\nmin.insync.replicas=1\n"), voter);
        assertTrue(voter.contains("\nnum.replica.fetchers=2\n"), voter);
        assertFalse(voter.contains("${"), voter);

        String brokerOnly = sut.renderedConfigs(FOUR.get(3), FOUR).get("/opt/kafka/server.properties");
        assertTrue(brokerOnly.contains("\nprocess.roles=broker\n"), brokerOnly);
        assertTrue(brokerOnly.contains("\nlisteners=PLAINTEXT://0.0.0.0:9092\n"), brokerOnly);

        var spec = sut.nodeSpec("img", FOUR.get(0), FOUR);
        assertEquals(List.of("/opt/kafka/start-node"), spec.command());
        assertTrue(spec.env().get("KAFKA_JVM_OPTS").startsWith(KafkaSettings.defaults().jvmOptions()), spec.env().toString());
        // one cluster id for every node of the cluster
        assertEquals(spec.env().get("KAFKA_CLUSTER_ID"), sut.nodeSpec("img", FOUR.get(3), FOUR).env().get("KAFKA_CLUSTER_ID"));
    }

    // A minimal valid descriptor in the temporary folder; each error test breaks one field of it.

    private Properties minimal() throws IOException {
        Files.createDirectories(dir.resolve("image"));
        Files.writeString(dir.resolve("image/Dockerfile"), "ARG NODE_IMAGE\nFROM ${NODE_IMAGE}\n");
        Files.writeString(dir.resolve("node.conf"), "id=${node.id}\n");
        var p = new Properties();
        p.setProperty("name", "mine");
        p.setProperty("version", "1.0");
        p.setProperty("image.dockerfile", "image");
        p.setProperty("start", "/opt/mine/run --flag");
        p.setProperty("config./etc/mine/node.conf", "node.conf");
        p.setProperty("data.dir", "/data/mine");
        return p;
    }

    private BrokerDescriptor load(Properties p) throws IOException {
        Path file = dir.resolve("mine.properties");
        try (var w = Files.newBufferedWriter(file)) {
            p.store(w, null);
        }
        return BrokerDescriptor.load(file);
    }

    private String error(Properties p) {
        var e = assertThrows(IllegalArgumentException.class, () -> load(p));
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertTrue(e.getMessage().startsWith("broker descriptor mine.properties: "), e.getMessage());
        return e.getMessage();
    }

    @Test
    void aMinimalDescriptorTakesTheDefaults() throws IOException {
        BrokerDescriptor d = load(minimal());
        assertEquals(List.of("/opt/mine/run", "--flag"), d.start());
        assertEquals(9092, d.port());
        assertEquals(9092, d.replicationPort(), "one port for clients and followers unless replication.port says");
        assertEquals(List.of(9092), d.peerPorts(), "peers talk on the client port unless peer.ports says");
        assertEquals(3, d.quorumSize());
        assertEquals(BrokerDescriptor.Controller.NONE, d.controller());
        assertTrue(d.leaders());
        assertEquals(Duration.ofSeconds(5), d.stopGrace());
        assertEquals(List.of("/data/mine", "/etc/mine/node.conf"), d.collect());
        assertFalse(DescribedBroker.of(d, KafkaSettings.defaults()) instanceof ControllerAware,
                "no controller-aimed faults without a way to find the controller");
    }

    @ParameterizedTest
    @ValueSource(strings = {"name", "version", "image.dockerfile", "start", "data.dir"})
    void aMissingRequiredFieldIsNamed(String field) throws IOException {
        var p = minimal();
        p.remove(field);
        assertTrue(error(p).contains(": " + field + ": missing (required)"), field);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "port|70000|port: must be a whole number in 1..65535, got '70000'",
            "replication.port|0|replication.port: must be a whole number in 1..65535, got '0'",
            "peer.ports|9092;9093|peer.ports: must be distinct ports in 1..65535, separated by commas, got '9092;9093'",
            "peer.ports|9092,9092|peer.ports: must be distinct ports",
            "quorum.size|three|quorum.size: must be a whole number",
            "ready|soon|ready: must be admin or port, got 'soon'",
            "controller|zookeeper|controller: must be quorum or metadata or none, got 'zookeeper'",
            "leader|always|leader: must be metadata or none",
            "transactions|yes|transactions: must be true or false",
            "client|2.8|client: must be current or legacy",
            "name|My Broker|name: must be lower case letters",
            "data.dir|data/mine|data.dir: must be an absolute path inside the node",
            "image.dockerfile|nowhere|image.dockerfile: no such folder nowhere",
            "image.context.libs|apache-kafka-jars:four|image.context.libs: an Apache Kafka version is",
            "image.context.libs|missing-folder|image.context.libs: no such folder missing-folder",
            "config./etc/mine/other.conf|absent.template|config./etc/mine/other.conf: template absent.template not found",
            "env.BAD-NAME|x|env.BAD-NAME: 'BAD-NAME' is not an environment variable name",
            "imagedockerfile|image|imagedockerfile: unknown field",
            "stop.grace.seconds|0|stop.grace.seconds: must be a whole number in 1..600"})
    void aBadValueIsOneLineNamingTheField(String field, String value, String expected) throws IOException {
        var p = minimal();
        p.setProperty(field, value);
        String message = error(p);
        assertTrue(message.contains(expected), message);
    }

    @Test
    void aFolderWithoutDockerfileIsRefused() throws IOException {
        var p = minimal();
        Files.delete(dir.resolve("image/Dockerfile"));
        assertTrue(error(p).contains("image.dockerfile: no Dockerfile in "));
    }

    @Test
    void anUnknownPlaceholderNamesTheTemplateFieldAndLine() throws IOException {
        var p = minimal();
        Files.writeString(dir.resolve("node.conf"), "id=${node.id}\nhost=${node.hostname}\n");
        String message = error(p);
        assertTrue(message.contains("config./etc/mine/node.conf: unknown placeholder ${node.hostname} at line 2"), message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "roles=${quorum.member:broker}|placeholder ${quorum.member:broker} at line 1 needs its argument",
            "peers=${nodes}|placeholder ${nodes} at line 1 needs its argument: ${nodes:PATTERN}",
            "id=${node.id:x}|placeholder ${node.id} takes no argument",
            "id=${node.id|unclosed placeholder at line 1"})
    void aMalformedPlaceholderIsRefused(String template, String expected) throws IOException {
        var p = minimal();
        Files.writeString(dir.resolve("node.conf"), template + "\n");
        String message = error(p);
        assertTrue(message.contains(expected), message);
    }

    @Test
    void anEnvironmentValueIsCheckedLikeATemplate() throws IOException {
        var p = minimal();
        p.setProperty("env.MINE_OPTS", "${jvm.flags}");
        assertTrue(error(p).contains("env.MINE_OPTS: unknown placeholder ${jvm.flags}"));
    }

    @Test
    void placeholdersExpandPerNodeAndDollarDollarIsLiteral() {
        var v = new NodeTemplate.Values(FOUR.get(2), FOUR, 19092, 1, "cid", KafkaSettings.defaults());
        String out = NodeTemplate.render("""
                self=${node.name}/${node.id}@${node.ip}:${port} of ${cluster.size} in ${cluster.id}
                voters=${quorum:{name}={ip}}
                all=${nodes:{id}@{ip}:${port}}
                others=${non.quorum:{name}}
                role=${quorum.member:voter|observer}
                shell=$${HOME}
                """, v);
        assertEquals("""
                self=n3/3@172.30.0.13:19092 of 4 in cid
                voters=n1=172.30.0.11
                all=1@172.30.0.11:19092,2@172.30.0.12:19092,3@172.30.0.13:19092,4@172.30.0.14:19092
                others=n2,n3,n4
                role=observer
                shell=${HOME}
                """, out);
    }

    @Test
    void aMissingDescriptorFileIsOneLine() {
        var e = assertThrows(IllegalArgumentException.class, () -> BrokerDescriptor.load(dir.resolve("none.properties")));
        assertTrue(e.getMessage().endsWith("none.properties: no such file"), e.getMessage());
    }
}
