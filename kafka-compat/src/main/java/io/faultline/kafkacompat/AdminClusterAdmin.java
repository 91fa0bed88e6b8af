package io.faultline.kafkacompat;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@link ClusterAdmin} over kafka-clients' Admin. Compiled against 4.4 and, for old brokers, defined again by the
 * isolating loader against 3.9.1: it uses only Admin calls whose signatures both lines share.
 */
public final class AdminClusterAdmin implements ClusterAdmin {
    private static final long WAIT_SECONDS = 5;
    private final Admin admin;

    private AdminClusterAdmin(Admin admin) {
        this.admin = admin;
    }

    /** Called through {@link KafkaClientLine#invokeStatic}, with the context loader already this line's. */
    public static ClusterAdmin create(String bootstrapServers) {
        return new AdminClusterAdmin(Admin.create(properties(bootstrapServers)));
    }

    /** Short timeouts and backoffs, so harness queries fail fast during faults. */
    public static Properties properties(String bootstrapServers) {
        var p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        p.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000);
        p.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000);
        return p;
    }

    @Override
    public Set<Integer> brokerIds() throws Exception {
        return admin.describeCluster().nodes().get(WAIT_SECONDS, TimeUnit.SECONDS).stream().map(Node::id)
                .collect(Collectors.toSet());
    }

    @Override
    public OptionalInt metadataControllerId() throws Exception {
        Node c = admin.describeCluster().controller().get(WAIT_SECONDS, TimeUnit.SECONDS);
        return c == null || c.isEmpty() ? OptionalInt.empty() : OptionalInt.of(c.id());
    }

    @Override
    public OptionalInt quorumLeaderId() throws Exception {
        int id = admin.describeMetadataQuorum().quorumInfo().get(WAIT_SECONDS, TimeUnit.SECONDS).leaderId();
        return id < 0 ? OptionalInt.empty() : OptionalInt.of(id);
    }

    @Override
    public Optional<PartitionState> partition(String topic, int partition) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(WAIT_SECONDS, TimeUnit.SECONDS).get(topic);
        if (d == null || partition >= d.partitions().size()) return Optional.empty();
        TopicPartitionInfo p = d.partitions().get(partition);
        Node leader = p.leader();
        return Optional.of(new PartitionState(leader == null || leader.isEmpty() ? OptionalInt.empty() : OptionalInt.of(leader.id()),
                p.replicas().stream().map(Node::id).toList(), p.isr().stream().map(Node::id).toList()));
    }

    @Override
    public void setClusterDefault(String key, String value) throws Exception {
        var resource = new ConfigResource(ConfigResource.Type.BROKER, "");
        var op = new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
        admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
