package io.faultline.nemesis.toxiproxy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Future;

/** The stage of each toxic type, following Toxiproxy 2.x's toxics/*.go. */
final class Toxics {
    private static final long MS = 1_000_000L;

    private Toxics() {}

    /** A stage for the spec: the toxic itself with probability toxicity, else a pass-through. */
    static Stage stage(ToxicSpec spec, Stage.Out out) {
        if (out.random().nextFloat() >= spec.toxicity()) return new Stage.Noop(out);
        ToxicAttributes t = spec.attributes();
        if (t instanceof ToxicAttributes.Latency a) return new Latency(a, out);
        if (t instanceof ToxicAttributes.Bandwidth a) return new Bandwidth(a, out);
        if (t instanceof ToxicAttributes.SlowClose a) return new SlowClose(a, out);
        if (t instanceof ToxicAttributes.Timeout a) return new Timeout(a, out);
        if (t instanceof ToxicAttributes.ResetPeer a) return new ResetPeer(a, out);
        if (t instanceof ToxicAttributes.Slicer a) return new Slicer(a, out);
        if (t instanceof ToxicAttributes.LimitData a) return new LimitData(a, out);
        throw new AssertionError(t);
    }

    static final class Latency implements Stage {
        private final ToxicAttributes.Latency a;
        private final Out out;
        private final TimedQueue queue;

        Latency(ToxicAttributes.Latency a, Out out) {
            this.a = a;
            this.out = out;
            this.queue = new TimedQueue(out);
        }

        @Override
        public void data(byte[] chunk) {
            long delay = a.latency();
            if (a.jitter() > 0) delay += (long) (out.random().nextDouble() * 2 * a.jitter()) - a.jitter();
            queue.add(chunk, out.nanoTime() + Math.max(0, delay) * MS);
        }

        @Override
        public void eof() {
            queue.addEof();
        }

        @Override
        public void detach() {
            queue.flush(); // no data is dropped when the toxic goes
        }
    }

    /** Rate in KB/s, i.e. bytes per ms; writes of more than 100 ms of data go out in 100 ms pieces. */
    static final class Bandwidth implements Stage {
        private final long rate;
        private final Out out;
        private final TimedQueue queue;

        Bandwidth(ToxicAttributes.Bandwidth a, Out out) {
            this.rate = a.rate();
            this.out = out;
            this.queue = new TimedQueue(out);
        }

        @Override
        public void data(byte[] chunk) {
            if (rate <= 0) {
                queue.add(chunk, out.nanoTime());
                return;
            }
            int piece = (int) Math.min(Integer.MAX_VALUE, rate * 100);
            for (int from = 0; from < chunk.length; from += piece) {
                byte[] part = Arrays.copyOfRange(chunk, from, Math.min(chunk.length, from + piece));
                queue.add(part, queue.lastDue() + part.length * MS / rate);
            }
        }

        @Override
        public void eof() {
            queue.addEof();
        }

        @Override
        public void detach() {
            queue.flush();
        }
    }

    static final class SlowClose implements Stage {
        private final ToxicAttributes.SlowClose a;
        private final Out out;
        private Future<?> closing;

        SlowClose(ToxicAttributes.SlowClose a, Out out) {
            this.a = a;
            this.out = out;
        }

        @Override
        public void data(byte[] chunk) {
            out.data(chunk);
        }

        @Override
        public void eof() {
            if (closing == null) closing = out.schedule(out::eof, a.delay() * MS);
        }

        @Override
        public void detach() {
            if (closing != null && closing.cancel(false)) out.eof();
        }
    }

    /** Drops data; closes after timeout ms with no data (0: never). Removing it closes the connection too. */
    static final class Timeout implements Stage {
        private final ToxicAttributes.Timeout a;
        private final Out out;
        private Future<?> timer;
        private boolean done;

        Timeout(ToxicAttributes.Timeout a, Out out) {
            this.a = a;
            this.out = out;
            arm();
        }

        private void arm() {
            if (timer != null) timer.cancel(false);
            if (a.timeout() > 0) timer = out.schedule(this::close, a.timeout() * MS);
        }

        private void close() {
            if (done) return;
            done = true;
            out.eof();
        }

        @Override
        public void data(byte[] chunk) {
            arm(); // Toxiproxy restarts its timer on every chunk
        }

        @Override
        public void eof() {
            if (timer != null) timer.cancel(false);
            close();
        }

        @Override
        public void detach() {
            if (timer != null) timer.cancel(false);
        }

        @Override
        public void removed() {
            close(); // as Toxiproxy's cleanup: a connection that lost data this way is not resumed
        }
    }

    static final class ResetPeer implements Stage {
        private final ToxicAttributes.ResetPeer a;
        private final Out out;
        private Future<?> timer;

        ResetPeer(ToxicAttributes.ResetPeer a, Out out) {
            this.a = a;
            this.out = out;
        }

        private void trigger() {
            if (timer == null) timer = out.schedule(out::reset, a.timeout() * MS);
        }

        @Override
        public void data(byte[] chunk) {
            trigger(); // the data is dropped, as Toxiproxy does
        }

        @Override
        public void eof() {
            trigger();
        }

        @Override
        public void detach() {
            if (timer != null) timer.cancel(false);
        }
    }

    static final class Slicer implements Stage {
        private final ToxicAttributes.Slicer a;
        private final Out out;
        private final TimedQueue queue;

        Slicer(ToxicAttributes.Slicer a, Out out) {
            this.a = a;
            this.out = out;
            this.queue = new TimedQueue(out);
        }

        @Override
        public void data(byte[] chunk) {
            List<Integer> cuts = new ArrayList<>();
            cut(0, chunk.length, cuts);
            long due = queue.lastDue();
            for (int i = 1; i < cuts.size(); i += 2) {
                queue.add(Arrays.copyOfRange(chunk, cuts.get(i - 1), cuts.get(i)), due);
                due += a.delay() * 1_000L;
            }
        }

        /** Toxiproxy's recursive halving with a random shift of up to size_variation. */
        private void cut(int start, int end, List<Integer> cuts) {
            if (a.averageSize() <= 0 || (end - start) - a.averageSize() <= a.sizeVariation()) {
                cuts.add(start);
                cuts.add(end);
                return;
            }
            int mid = start + (end - start) / 2;
            if (a.sizeVariation() > 0) mid += out.random().nextInt(a.sizeVariation() * 2) - a.sizeVariation();
            mid = Math.max(start + 1, Math.min(end - 1, mid));
            cut(start, mid, cuts);
            cut(mid, end, cuts);
        }

        @Override
        public void eof() {
            queue.addEof();
        }

        @Override
        public void detach() {
            queue.flush();
        }
    }

    static final class LimitData implements Stage {
        private final ToxicAttributes.LimitData a;
        private final Out out;
        private long sent;
        private boolean closed;

        LimitData(ToxicAttributes.LimitData a, Out out) {
            this.a = a;
            this.out = out;
        }

        @Override
        public void data(byte[] chunk) {
            if (closed) return;
            long left = Math.max(0, a.bytes() - sent);
            byte[] pass = left < chunk.length ? Arrays.copyOf(chunk, (int) left) : chunk;
            if (pass.length > 0) out.data(pass);
            sent += pass.length;
            if (sent >= a.bytes()) {
                closed = true;
                out.eof();
            }
        }

        @Override
        public void eof() {
            if (!closed) {
                closed = true;
                out.eof();
            }
        }

        @Override
        public void detach() {}
    }
}
