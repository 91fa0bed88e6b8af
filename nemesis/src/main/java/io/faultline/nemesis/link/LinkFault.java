package io.faultline.nemesis.link;

import eu.rekawek.toxiproxy.model.ToxicDirection;
import eu.rekawek.toxiproxy.model.ToxicList;

import java.io.IOException;

/**
 * A fault on links, as the toxics that make it: each kind adds its toxic on every stream that carries data in a
 * hit direction. Values are the ones the history shows.
 */
public sealed interface LinkFault {
    LinkTarget target();

    /** Short kind name: slow, flaky, throttle, one-way, sliced. */
    String kind();

    /** Only one-way hits just the target's directions; the others hit both directions of each link. */
    default boolean bothDirections() {
        return true;
    }

    /** Adds this fault's toxic to one stream of one proxy. */
    void addTo(ToxicList toxics, String name, ToxicDirection stream) throws IOException;

    /** Latency plus uniform jitter, on every chunk. */
    record Slow(LinkTarget target, long latencyMs, long jitterMs) implements LinkFault {
        @Override
        public String kind() {
            return "slow";
        }

        @Override
        public void addTo(ToxicList toxics, String name, ToxicDirection stream) throws IOException {
            toxics.latency(name, stream, latencyMs).setJitter(jitterMs);
        }
    }

    /**
     * A share of connections fails: with probability {@code toxicity} a connection is reset at its first data
     * after {@code afterMs} (reset_peer), or, with {@code silent}, its data stops and it closes after
     * {@code afterMs} (timeout). Clients reconnect and draw again.
     */
    record Flaky(LinkTarget target, float toxicity, long afterMs, boolean silent) implements LinkFault {
        public Flaky {
            if (!(toxicity > 0 && toxicity < 1)) throw new IllegalArgumentException("flaky toxicity must be in (0, 1)");
        }

        @Override
        public String kind() {
            return "flaky";
        }

        @Override
        public void addTo(ToxicList toxics, String name, ToxicDirection stream) throws IOException {
            if (silent) toxics.timeout(name, stream, Math.max(1, afterMs)).setToxicity(toxicity);
            else toxics.resetPeer(name, stream, afterMs).setToxicity(toxicity);
        }
    }

    /** At most {@code rateKBps} KB/s each way. */
    record Throttle(LinkTarget target, long rateKBps) implements LinkFault {
        @Override
        public String kind() {
            return "throttle";
        }

        @Override
        public void addTo(ToxicList toxics, String name, ToxicDirection stream) throws IOException {
            toxics.bandwidth(name, stream, rateKBps);
        }
    }

    /** Data stops in the target's directions only, held (timeout 0) until healed: an asymmetric partition. */
    record OneWay(LinkTarget target) implements LinkFault {
        @Override
        public String kind() {
            return "one-way";
        }

        @Override
        public boolean bothDirections() {
            return false;
        }

        @Override
        public void addTo(ToxicList toxics, String name, ToxicDirection stream) throws IOException {
            toxics.timeout(name, stream, 0);
        }
    }

    /** Writes cut into pieces of about averageSize ± sizeVariation bytes, delayMicros apart. */
    record Sliced(LinkTarget target, int averageSize, int sizeVariation, int delayMicros) implements LinkFault {
        @Override
        public String kind() {
            return "sliced";
        }

        @Override
        public void addTo(ToxicList toxics, String name, ToxicDirection stream) throws IOException {
            toxics.slicer(name, stream, averageSize, delayMicros).setSizeVariation(sizeVariation);
        }
    }
}
