package io.faultline.broker.txn;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Records of {@code __transaction_state}: key = (version, transactional id), value = the whole {@link TxnMetadata}
 * (version, producer id, epoch, timeout, state, start and update times, partitions). One record per change; the
 * compacted topic keeps the latest per transactional id, which is all a loading coordinator needs. Value version 1
 * appends the transaction-version-2 fields (previous and next producer id, v2 flag); version 0 is still read.
 */
final class TxnLogCodec {
    private static final short KEY_VERSION = 0;
    private static final short VALUE_VERSION = 1;

    private TxnLogCodec() {
    }

    static byte[] key(String transactionalId) {
        byte[] id = transactionalId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 2 + id.length).putShort(KEY_VERSION).putShort((short) id.length).put(id).array();
    }

    /** The transactional id of a key, or null for a key of another version (skipped, as Kafka's loader does). */
    static String transactionalId(ByteBuffer key) {
        ByteBuffer k = key.duplicate();
        if (k.getShort() != KEY_VERSION) return null;
        byte[] id = new byte[k.getShort()];
        k.get(id);
        return new String(id, StandardCharsets.UTF_8);
    }

    static byte[] value(TxnMetadata m) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(VALUE_VERSION);
            out.writeLong(m.producerId());
            out.writeShort(m.producerEpoch());
            out.writeInt(m.timeoutMs());
            out.writeByte(m.state().id());
            out.writeLong(m.txnStartMs());
            out.writeLong(m.lastUpdateMs());
            out.writeInt(m.partitions().size());
            for (TopicPartition tp : m.partitions()) {
                out.writeUTF(tp.topic());
                out.writeInt(tp.partition());
            }
            out.writeLong(m.previousProducerId());
            out.writeLong(m.nextProducerId());
            out.writeBoolean(m.v2());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static TxnMetadata decode(String transactionalId, ByteBuffer value) {
        byte[] raw = new byte[value.remaining()];
        value.duplicate().get(raw);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(raw))) {
            short version = in.readShort();
            if (version != 0 && version != VALUE_VERSION) throw new IllegalArgumentException("unknown value version " + version);
            long pid = in.readLong();
            short epoch = in.readShort();
            int timeout = in.readInt();
            TransactionState state = TransactionState.of(in.readByte());
            long start = in.readLong();
            long update = in.readLong();
            int n = in.readInt();
            Set<TopicPartition> parts = new HashSet<>();
            for (int i = 0; i < n; i++) parts.add(new TopicPartition(in.readUTF(), in.readInt()));
            if (version == 0) return new TxnMetadata(transactionalId, pid, epoch, timeout, state, parts, start, update);
            return new TxnMetadata(transactionalId, pid, epoch, timeout, state, parts, start, update, in.readLong(),
                    in.readLong(), in.readBoolean());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
