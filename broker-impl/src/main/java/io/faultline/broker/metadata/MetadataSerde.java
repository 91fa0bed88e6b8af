package io.faultline.broker.metadata;

import io.faultline.broker.metadata.MetadataRecord.ClientQuotaRecord;
import io.faultline.broker.metadata.MetadataRecord.ConfigRecord;
import io.faultline.broker.metadata.MetadataRecord.ControlledShutdownRecord;
import io.faultline.broker.metadata.MetadataRecord.FenceBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionChangeRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionRecord;
import io.faultline.broker.metadata.MetadataRecord.PartitionReplicasRecord;
import io.faultline.broker.metadata.MetadataRecord.RegisterBrokerRecord;
import io.faultline.broker.metadata.MetadataRecord.RemoveTopicRecord;
import io.faultline.broker.metadata.MetadataRecord.TopicRecord;
import io.faultline.broker.metadata.MetadataRecord.UnfenceBrokerRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Stable binary form of record batches (one Raft log entry) and of whole images (snapshots). Layout: a magic
 * byte and format version, then tagged records; every field has a fixed encoding (big-endian ints, UTF-8 strings
 * with a length, -1 length for null). Tags and the version are part of the on-disk format: never renumber.
 */
public final class MetadataSerde {
    private static final int BATCH_MAGIC = 0x4D; // 'M'
    private static final int IMAGE_MAGIC = 0x49; // 'I'
    private static final int VERSION = 1;
    /** Images since version 2 end with each broker's registration offset (version 1 images are still read). */
    private static final int IMAGE_VERSION = 2;

    private static final int REGISTER_BROKER = 1, FENCE_BROKER = 2, UNFENCE_BROKER = 3, CONTROLLED_SHUTDOWN = 4,
            TOPIC = 5, PARTITION = 6, PARTITION_CHANGE = 7, REMOVE_TOPIC = 8, CONFIG = 9, CLIENT_QUOTA = 10,
            /** A PartitionRecord with a reassignment in progress (tag 6 stays for those without, as before). */
            PARTITION_REASSIGNING = 11, PARTITION_REPLICAS = 12;

    private MetadataSerde() { }

    public static byte[] serializeBatch(List<? extends MetadataRecord> records) {
        return write(BATCH_MAGIC, VERSION, -1, records, null);
    }

    public static List<MetadataRecord> deserializeBatch(byte[] bytes) {
        return read(BATCH_MAGIC, bytes).records;
    }

    /** The image as its offset plus the records that rebuild it ({@link MetadataImage#toRecords}). */
    public static byte[] serializeImage(MetadataImage image) {
        Map<Integer, Long> registeredAt = new TreeMap<>();
        image.brokers().forEach((id, b) -> registeredAt.put(id, b.registeredAt()));
        return write(IMAGE_MAGIC, IMAGE_VERSION, image.offset(), image.toRecords(), registeredAt);
    }

    public static MetadataImage deserializeImage(byte[] bytes) {
        Decoded d = read(IMAGE_MAGIC, bytes);
        return MetadataImage.EMPTY.apply(d.offset, d.records).withRegisteredAt(d.registeredAt);
    }

    private record Decoded(long offset, List<MetadataRecord> records, Map<Integer, Long> registeredAt) { }

    private static byte[] write(int magic, int version, long offset, List<? extends MetadataRecord> records,
                                Map<Integer, Long> registeredAt) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(magic);
            out.writeByte(version);
            out.writeLong(offset);
            out.writeInt(records.size());
            for (MetadataRecord r : records) writeRecord(out, r);
            if (registeredAt != null) {
                out.writeInt(registeredAt.size());
                for (Map.Entry<Integer, Long> e : registeredAt.entrySet()) {
                    out.writeInt(e.getKey());
                    out.writeLong(e.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static Decoded read(int magic, byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int m = in.readUnsignedByte();
            int v = in.readUnsignedByte();
            boolean known = v == VERSION || (magic == IMAGE_MAGIC && v == IMAGE_VERSION);
            if (m != magic || !known) {
                throw new IllegalArgumentException("not a metadata " + (magic == BATCH_MAGIC ? "batch" : "image")
                        + " (magic " + m + ", version " + v + ")");
            }
            long offset = in.readLong();
            int n = in.readInt();
            if (n < 0 || n > bytes.length) throw new IllegalArgumentException("bad record count " + n);
            List<MetadataRecord> records = new ArrayList<>(n);
            for (int i = 0; i < n; i++) records.add(readRecord(in));
            Map<Integer, Long> registeredAt = new TreeMap<>();
            if (magic == IMAGE_MAGIC && v == IMAGE_VERSION) {
                int brokers = in.readInt();
                if (brokers < 0 || brokers > bytes.length) throw new IllegalArgumentException("bad broker count " + brokers);
                for (int i = 0; i < brokers; i++) registeredAt.put(in.readInt(), in.readLong());
            }
            if (in.available() > 0) throw new IllegalArgumentException(in.available() + " trailing bytes");
            return new Decoded(offset, records, registeredAt);
        } catch (EOFException e) {
            throw new IllegalArgumentException("truncated metadata bytes", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeRecord(DataOutputStream out, MetadataRecord record) throws IOException {
        if (record instanceof RegisterBrokerRecord r) {
            out.writeByte(REGISTER_BROKER);
            out.writeInt(r.brokerId());
            writeUuid(out, r.incarnationId());
            out.writeLong(r.brokerEpoch());
            TreeMap<String, Endpoint> eps = new TreeMap<>(r.endpoints());
            out.writeInt(eps.size());
            for (Map.Entry<String, Endpoint> e : eps.entrySet()) {
                writeString(out, e.getKey());
                writeString(out, e.getValue().host());
                out.writeInt(e.getValue().port());
            }
            writeString(out, r.rack());
        } else if (record instanceof FenceBrokerRecord r) {
            out.writeByte(FENCE_BROKER);
            out.writeInt(r.brokerId());
            out.writeLong(r.brokerEpoch());
        } else if (record instanceof UnfenceBrokerRecord r) {
            out.writeByte(UNFENCE_BROKER);
            out.writeInt(r.brokerId());
            out.writeLong(r.brokerEpoch());
        } else if (record instanceof ControlledShutdownRecord r) {
            out.writeByte(CONTROLLED_SHUTDOWN);
            out.writeInt(r.brokerId());
            out.writeLong(r.brokerEpoch());
        } else if (record instanceof TopicRecord r) {
            out.writeByte(TOPIC);
            writeString(out, r.name());
            writeUuid(out, r.topicId());
        } else if (record instanceof PartitionRecord r) {
            boolean moving = !r.addingReplicas().isEmpty() || !r.removingReplicas().isEmpty();
            out.writeByte(moving ? PARTITION_REASSIGNING : PARTITION);
            writeUuid(out, r.topicId());
            out.writeInt(r.partition());
            writeInts(out, r.replicas());
            writeInts(out, r.isr());
            out.writeInt(r.leader());
            out.writeInt(r.leaderEpoch());
            out.writeInt(r.partitionEpoch());
            if (moving) {
                writeInts(out, r.addingReplicas());
                writeInts(out, r.removingReplicas());
            }
        } else if (record instanceof PartitionReplicasRecord r) {
            out.writeByte(PARTITION_REPLICAS);
            writeUuid(out, r.topicId());
            out.writeInt(r.partition());
            writeInts(out, r.replicas());
            writeInts(out, r.isr());
            out.writeInt(r.leader());
            writeInts(out, r.addingReplicas());
            writeInts(out, r.removingReplicas());
            out.writeInt(r.leaderEpoch());
            out.writeInt(r.partitionEpoch());
        } else if (record instanceof PartitionChangeRecord r) {
            out.writeByte(PARTITION_CHANGE);
            writeUuid(out, r.topicId());
            out.writeInt(r.partition());
            out.writeBoolean(r.isr().isPresent());
            if (r.isr().isPresent()) writeInts(out, r.isr().get());
            out.writeBoolean(r.leader().isPresent());
            if (r.leader().isPresent()) out.writeInt(r.leader().getAsInt());
            out.writeInt(r.leaderEpoch());
            out.writeInt(r.partitionEpoch());
        } else if (record instanceof RemoveTopicRecord r) {
            out.writeByte(REMOVE_TOPIC);
            writeUuid(out, r.topicId());
        } else if (record instanceof ConfigRecord r) {
            out.writeByte(CONFIG);
            out.writeByte(r.resourceType().id());
            writeString(out, r.resourceName());
            writeString(out, r.key());
            writeString(out, r.value());
        } else if (record instanceof ClientQuotaRecord r) {
            out.writeByte(CLIENT_QUOTA);
            out.writeInt(r.entity().parts().size());
            for (QuotaEntity.Part p : r.entity().parts()) {
                writeString(out, p.type());
                writeString(out, p.name());
            }
            writeString(out, r.key());
            out.writeBoolean(r.value() != null);
            if (r.value() != null) out.writeDouble(r.value());
        } else {
            throw new IllegalArgumentException("unknown record " + record);
        }
    }

    private static MetadataRecord readRecord(DataInputStream in) throws IOException {
        int tag = in.readUnsignedByte();
        switch (tag) {
            case REGISTER_BROKER: {
                int id = in.readInt();
                Uuid inc = readUuid(in);
                long epoch = in.readLong();
                int n = readCount(in);
                TreeMap<String, Endpoint> eps = new TreeMap<>();
                for (int i = 0; i < n; i++) eps.put(readString(in), new Endpoint(readString(in), in.readInt()));
                return new RegisterBrokerRecord(id, inc, epoch, eps, readString(in));
            }
            case FENCE_BROKER: return new FenceBrokerRecord(in.readInt(), in.readLong());
            case UNFENCE_BROKER: return new UnfenceBrokerRecord(in.readInt(), in.readLong());
            case CONTROLLED_SHUTDOWN: return new ControlledShutdownRecord(in.readInt(), in.readLong());
            case TOPIC: return new TopicRecord(readString(in), readUuid(in));
            case PARTITION:
                return new PartitionRecord(readUuid(in), in.readInt(), readInts(in), readInts(in), in.readInt(),
                        in.readInt(), in.readInt());
            case PARTITION_REASSIGNING:
                return new PartitionRecord(readUuid(in), in.readInt(), readInts(in), readInts(in), in.readInt(),
                        in.readInt(), in.readInt(), readInts(in), readInts(in));
            case PARTITION_REPLICAS:
                return new PartitionReplicasRecord(readUuid(in), in.readInt(), readInts(in), readInts(in), in.readInt(),
                        readInts(in), readInts(in), in.readInt(), in.readInt());
            case PARTITION_CHANGE: {
                Uuid id = readUuid(in);
                int p = in.readInt();
                Optional<List<Integer>> isr = in.readBoolean() ? Optional.of(readInts(in)) : Optional.empty();
                OptionalInt leader = in.readBoolean() ? OptionalInt.of(in.readInt()) : OptionalInt.empty();
                return new PartitionChangeRecord(id, p, isr, leader, in.readInt(), in.readInt());
            }
            case REMOVE_TOPIC: return new RemoveTopicRecord(readUuid(in));
            case CONFIG: {
                ConfigResource.Type type = ConfigResource.Type.forId(in.readByte());
                String name = readString(in);
                String key = readString(in);
                return new ConfigRecord(type, name, key, readString(in));
            }
            case CLIENT_QUOTA: {
                int n = readCount(in);
                List<QuotaEntity.Part> parts = new ArrayList<>(n);
                for (int i = 0; i < n; i++) parts.add(new QuotaEntity.Part(readString(in), readString(in)));
                String key = readString(in);
                Double value = in.readBoolean() ? in.readDouble() : null;
                return new ClientQuotaRecord(new QuotaEntity(parts), key, value);
            }
            default: throw new IllegalArgumentException("unknown metadata record tag " + tag);
        }
    }

    private static void writeUuid(DataOutputStream out, Uuid id) throws IOException {
        out.writeLong(id.getMostSignificantBits());
        out.writeLong(id.getLeastSignificantBits());
    }

    private static Uuid readUuid(DataInputStream in) throws IOException {
        return new Uuid(in.readLong(), in.readLong());
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n == -1) return null;
        if (n < 0 || n > in.available()) throw new IllegalArgumentException("bad string length " + n);
        return new String(in.readNBytes(n), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void writeInts(DataOutputStream out, List<Integer> xs) throws IOException {
        out.writeInt(xs.size());
        for (int x : xs) out.writeInt(x);
    }

    private static List<Integer> readInts(DataInputStream in) throws IOException {
        int n = readCount(in);
        List<Integer> xs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) xs.add(in.readInt());
        return xs;
    }

    private static int readCount(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) throw new IllegalArgumentException("bad count " + n);
        return n;
    }
}
