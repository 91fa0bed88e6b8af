package io.faultline.nemesis.toxiproxy;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One direction of one proxied connection (upstream: client to server; downstream: server to client): the chain
 * of toxic stages in the order the toxics were added, ending at the destination socket. Runs on the connection's
 * event loop only. Reading from the source pauses while too much is held in the chain or the socket buffer.
 */
final class Direction {
    private static final long PAUSE_ABOVE = 1 << 20;
    private static final long RESUME_BELOW = 256 << 10;

    private final Connection connection;
    private final Channel source;
    private final Channel destination;
    private final List<Slot> slots = new ArrayList<>();
    private long held;

    Direction(Connection connection, Channel source, Channel destination) {
        this.connection = connection;
        this.source = source;
        this.destination = destination;
    }

    /** A toxic's place in the chain; it is also the Out of the stage in it. */
    final class Slot implements Stage.Out {
        final String name;
        Stage stage;
        boolean attached = true;

        Slot(String name) {
            this.name = name;
        }

        @Override
        public void data(byte[] chunk) {
            if (attached) deliver(slots.indexOf(this) + 1, chunk);
        }

        @Override
        public void eof() {
            if (attached) deliverEof(slots.indexOf(this) + 1);
        }

        @Override
        public void reset() {
            if (attached) connection.reset();
        }

        @Override
        public Future<?> schedule(Runnable task, long delayNanos) {
            return connection.loop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public Random random() {
            return ThreadLocalRandom.current();
        }
    }

    void add(ToxicSpec spec) {
        Slot slot = new Slot(spec.name());
        slot.stage = Toxics.stage(spec, slot);
        slots.add(slot);
    }

    void update(ToxicSpec spec) {
        for (Slot slot : slots) {
            if (!slot.name.equals(spec.name())) continue;
            slot.stage.detach();
            slot.stage = Toxics.stage(spec, slot);
        }
    }

    void remove(String name) {
        for (Slot slot : List.copyOf(slots)) {
            if (!slot.name.equals(name)) continue;
            slot.stage.detach();
            slot.stage.removed();
            slot.attached = false;
            slots.remove(slot);
        }
    }

    /** The connection is gone: stop every stage without passing anything on. */
    void discard() {
        for (Slot slot : slots) {
            slot.attached = false;
            slot.stage.detach();
        }
        slots.clear();
    }

    void receive(byte[] chunk) {
        held += chunk.length;
        if (held > PAUSE_ABOVE) source.config().setAutoRead(false);
        deliver(0, chunk);
    }

    void receiveEof() {
        deliverEof(0);
    }

    private void deliver(int index, byte[] chunk) {
        if (index < slots.size()) {
            slots.get(index).stage.data(chunk);
            return;
        }
        held -= chunk.length;
        if (connection.isClosed()) return;
        destination.writeAndFlush(Unpooled.wrappedBuffer(chunk));
        resumeIfDrained();
    }

    private void deliverEof(int index) {
        if (index < slots.size()) slots.get(index).stage.eof();
        else connection.close();
    }

    /** Reads again once the chain and the destination's buffer have room (called on writability changes too). */
    void resumeIfDrained() {
        if (connection.isClosed()) return;
        boolean room = held < RESUME_BELOW && destination.isWritable();
        if (room && !source.config().isAutoRead()) source.config().setAutoRead(true);
        else if (!destination.isWritable() && source.config().isAutoRead()) source.config().setAutoRead(false);
    }
}
