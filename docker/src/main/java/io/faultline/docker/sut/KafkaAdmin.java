package io.faultline.docker.sut;

import org.apache.kafka.clients.admin.Admin;

/** Admin clients with short timeouts and backoffs, so harness queries fail fast during faults. */
public final class KafkaAdmin {
    private KafkaAdmin() {}

    public static Admin create(String bootstrapServers) {
        return Admin.create(io.faultline.kafkacompat.AdminClusterAdmin.properties(bootstrapServers));
    }
}
