package io.faultline.nemesis;

import java.util.Set;

/**
 * Something that injects and heals one kind of fault (Jepsen's nemesis). The scheduler calls {@link #invoke}
 * from one thread at a time; implementations still guard their state because node start listeners (which
 * re-apply partitions) run on whatever thread starts a node.
 */
public interface Nemesis {
    /** The op functions this nemesis understands, e.g. start-partition and stop-partition. */
    Set<String> fs();

    /** Prepares the nemesis before the first op (register listeners, read initial state). */
    default void setup(NemesisContext ctx) {}

    /** Performs the op and returns it completed with a description of what was done; throws on failure. */
    FaultOp invoke(NemesisContext ctx, FaultOp op);

    /** Undoes anything still in force and releases what {@link #setup} registered. Never throws. */
    default void teardown(NemesisContext ctx) {}
}
