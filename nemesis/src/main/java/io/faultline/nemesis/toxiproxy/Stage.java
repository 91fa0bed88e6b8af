package io.faultline.nemesis.toxiproxy;

/**
 * One toxic working on one direction of one connection. Every method runs on the connection's event loop, so a
 * stage needs no locks. A stage passes data, end of stream, or a reset to its {@link Out}.
 */
interface Stage {
    /** A chunk read from the source (the stage owns the array). */
    void data(byte[] chunk);

    /** The source closed: pass it on in order after the data before it. */
    void eof();

    /** The toxic is removed or replaced: hand everything held to the output now and cancel timers. */
    void detach();

    /** After {@link #detach()} when the toxic is deleted (not replaced by an update). */
    default void removed() {}

    /** Where a stage sends its output: the next toxic of the direction, or the destination socket. */
    interface Out {
        void data(byte[] chunk);

        void eof();

        /** Resets both sockets of the connection (SO_LINGER 0, then close: the peers see RST). */
        void reset();

        /** Schedules a task on the connection's event loop; the result can be cancelled. */
        java.util.concurrent.Future<?> schedule(Runnable task, long delayNanos);

        long nanoTime();

        java.util.Random random();
    }

    /** Toxicity draw lost: data passes untouched. */
    final class Noop implements Stage {
        private final Out out;

        Noop(Out out) {
            this.out = out;
        }

        @Override
        public void data(byte[] chunk) {
            out.data(chunk);
        }

        @Override
        public void eof() {
            out.eof();
        }

        @Override
        public void detach() {}
    }
}
