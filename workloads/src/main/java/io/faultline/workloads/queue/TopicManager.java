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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates the run's topics on first use, shared by all clients of a run. If creation fails the caller gets a
 * {@link ErrorClassifier.DefiniteFailure}: the operation that needed the topic has not sent anything yet.
 */
public final class TopicManager implements AutoCloseable {
    /** How many keys beyond the highest one in use get their topics ahead of need. */
    public static final int LOOKAHEAD = 4;

    private final QueueWorkloadConfig cfg;
    private final KeyMapping mapping;
    /** Topics known to exist; read without the lock, so a creation stuck in a fault holds up only its own op. */
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    /** Topics whose creation ahead of need was asked for (once each). */
    private final Set<String> requestedAhead = new HashSet<>();
    /** Every key up to this one has had its topic asked for. */
    private volatile int aheadUpTo = -1;
    private Admin admin;

    public TopicManager(QueueWorkloadConfig cfg) {
        this.cfg = cfg;
        this.mapping = new KeyMapping(cfg.topicPrefix(), cfg.settings().partitionsPerTopic());
    }

    public KeyMapping mapping() {
        return mapping;
    }

    /**
     * Makes sure the topics holding {@code keys} exist (no-op when topic creation is off). Also asks, without
     * waiting, for the topics of the next {@link #LOOKAHEAD} keys: keys retire in order (QueueOps), so the key that
     * replaces a retired one finds its topic already there instead of creating it, possibly in the middle of a fault,
     * on the op's time.
     */
    public void ensure(Collection<Integer> keys) {
        if (!cfg.settings().createTopics()) {
            return;
        }
        boolean allKnown = true;
        for (String topic : mapping.topicsOf(keys)) {
            allKnown &= known.contains(topic);
        }
        if (!allKnown) {
            createNeeded(keys);
        }
        requestAhead(keys);
    }

    private synchronized void createNeeded(Collection<Integer> keys) {
        List<NewTopic> missing = new ArrayList<>();
        for (String topic : mapping.topicsOf(keys)) {
            if (!known.contains(topic)) {
                missing.add(newTopic(topic));
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

    /** Fire-and-forget creation of the next keys' topics; a failure only means the op that needs one creates it. */
    private void requestAhead(Collection<Integer> keys) {
        int max = -1;
        for (int k : keys) {
            max = Math.max(max, k);
        }
        if (max + LOOKAHEAD <= aheadUpTo) {
            return; // the common case: asked for already, no lock
        }
        requestAheadOf(max);
    }

    private synchronized void requestAheadOf(int max) {
        aheadUpTo = Math.max(aheadUpTo, max + LOOKAHEAD);
        List<Integer> ahead = new ArrayList<>();
        for (int k = max + 1; k <= max + LOOKAHEAD; k++) {
            ahead.add(k);
        }
        List<NewTopic> wanted = new ArrayList<>();
        for (String topic : mapping.topicsOf(ahead)) {
            if (!known.contains(topic) && requestedAhead.add(topic)) {
                wanted.add(newTopic(topic));
            }
        }
        if (wanted.isEmpty()) {
            return;
        }
        try {
            admin().createTopics(wanted).values().forEach((name, future) -> future.whenComplete((ok, error) -> {
                if (error == null || error instanceof TopicExistsException) {
                    known.add(name);
                }
            }));
        } catch (RuntimeException e) {
            // e.g. the admin client cannot be created right now: the ops that need these topics will create them
        }
    }

    private NewTopic newTopic(String topic) {
        short rf = cfg.settings().replicationFactor();
        NewTopic t = new NewTopic(topic, Optional.of(cfg.settings().partitionsPerTopic()),
                rf < 0 ? Optional.empty() : Optional.of(rf));
        return cfg.topicConfigs().isEmpty() ? t : t.configs(cfg.topicConfigs());
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
