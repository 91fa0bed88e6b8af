package io.faultline.docker.sut;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import java.util.Properties;

/** Admin clients with short timeouts and backoffs, so harness queries fail fast during faults. */
public final class KafkaAdmin {
    private KafkaAdmin() {}

    public static Admin create(String bootstrapServers) {
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
        return Admin.create(p);
    }
}
