package io.faultline.broker.metadata;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The topic catalogue of a single node: what the KRaft metadata log holds in Kafka. Persisted atomically
 * (tmp + fsync + rename) in {@code faultline-topics.properties} of the data directory, so topic ids survive
 * restarts (clients cache them and fail every request if they change).
 *
 * <p>Thread-safety: reads are lock-free; create/delete are serialized.
 */
public final class TopicRegistry {
    public static final String FILE_NAME = "faultline-topics.properties";

    private final Path file;
    private final Map<String, TopicInfo> byName = new ConcurrentHashMap<>();
    private final Map<Uuid, TopicInfo> byId = new ConcurrentHashMap<>();

    public TopicRegistry(Path dataDir) {
        this.file = dataDir.resolve(FILE_NAME);
        load();
    }

    private void load() {
        if (!Files.exists(file)) return;
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String key : p.stringPropertyNames()) {
            if (!key.endsWith(".name")) continue;
            String id = key.substring(0, key.length() - ".name".length());
            Map<String, String> configs = new HashMap<>();
            String prefix = id + ".config.";
            for (String k : p.stringPropertyNames()) {
                if (k.startsWith(prefix)) configs.put(k.substring(prefix.length()), p.getProperty(k));
            }
            TopicInfo t = new TopicInfo(p.getProperty(key), Uuid.fromString(id),
                    Integer.parseInt(p.getProperty(id + ".partitions")), configs);
            byName.put(t.name(), t);
            byId.put(t.id(), t);
        }
    }

    public Optional<TopicInfo> byName(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public Optional<TopicInfo> byId(Uuid id) {
        return Optional.ofNullable(byId.get(id));
    }

    public Collection<TopicInfo> all() {
        return List.copyOf(byName.values());
    }

    /** @throws TopicExistsException if the name is taken */
    public synchronized TopicInfo create(String name, int partitions, Map<String, String> configs) {
        if (byName.containsKey(name)) throw new TopicExistsException("Topic '" + name + "' already exists.");
        Uuid id;
        do {
            id = Uuid.randomUuid();
        } while (byId.containsKey(id));
        TopicInfo t = new TopicInfo(name, id, partitions, configs);
        byName.put(name, t);
        byId.put(id, t);
        persist();
        return t;
    }

    public synchronized Optional<TopicInfo> delete(String name) {
        TopicInfo t = byName.remove(name);
        if (t == null) return Optional.empty();
        byId.remove(t.id());
        persist();
        return Optional.of(t);
    }

    private void persist() {
        Properties p = new Properties();
        for (TopicInfo t : byName.values()) {
            String id = t.id().toString();
            p.setProperty(id + ".name", t.name());
            p.setProperty(id + ".partitions", Integer.toString(t.partitions()));
            t.configs().forEach((k, v) -> p.setProperty(id + ".config." + k, v));
        }
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(tmp)) {
                p.store(out, "Faultline topics");
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot persist topic registry", e);
        }
    }
}
