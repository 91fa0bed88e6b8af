package io.faultline.workloads.queue;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates the run's topics on first use, shared by all clients of a run. If creation fails the caller gets a
 * {@link ErrorClassifier.DefiniteFailure}: the operation that needed the topic has not sent anything yet.
 */
public final class TopicManager implements AutoCloseable {
    private final QueueWorkloadConfig cfg;
    private final KeyMapping mapping;
    private final Set<String> known = new HashSet<>();
    private Admin admin;

    public TopicManager(QueueWorkloadConfig cfg) {
        this.cfg = cfg;
        this.mapping = new KeyMapping(cfg.topicPrefix(), cfg.settings().partitionsPerTopic());
    }

    public KeyMapping mapping() {
        return mapping;
    }

    /** Makes sure the topics holding {@code keys} exist (no-op when topic creation is off). */
    public synchronized void ensure(Collection<Integer> keys) {
        if (!cfg.settings().createTopics()) {
            return;
        }
        List<NewTopic> missing = new ArrayList<>();
        for (String topic : mapping.topicsOf(keys)) {
            if (!known.contains(topic)) {
                short rf = cfg.settings().replicationFactor();
                missing.add(new NewTopic(topic, Optional.of(cfg.settings().partitionsPerTopic()),
                        rf < 0 ? Optional.empty() : Optional.of(rf)));
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        long timeoutMs = cfg.settings().requestTimeoutMs();
        try {
            var results = admin().createTopics(missing).values();
            for (NewTopic t : missing) {
                try {
                    results.get(t.name()).get(timeoutMs, TimeUnit.MILLISECONDS);
                    known.add(t.name());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                    known.add(t.name());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ErrorClassifier.DefiniteFailure("interrupted while creating topics", e);
        } catch (Exception e) {
            throw new ErrorClassifier.DefiniteFailure("could not create topics " + missing, e);
        }
    }

    private Admin admin() {
        if (admin == null) {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
            p.put(AdminClientConfig.CLIENT_ID_CONFIG, cfg.topicPrefix() + "-admin");
            p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, cfg.settings().requestTimeoutMs());
            p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, cfg.settings().requestTimeoutMs());
            p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
            p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 100);
            admin = Admin.create(p);
        }
        return admin;
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
            admin = null;
        }
    }
}
