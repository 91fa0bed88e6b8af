package io.faultline.checker.txn;

/** Why one transaction must precede another. Bit masks select the kinds a search may follow. */
public enum EdgeKind {
    /** T1 wrote a version of a key, T2 wrote the next one (offset order). */
    WW("ww"),
    /** T2 read a value T1 wrote. */
    WR("wr"),
    /** T1's read of a key ended at a version whose next version T2 wrote: T1 did not see T2's write. */
    RW("rw"),
    /** Same process, T1 completed before T2 was invoked. */
    PROCESS("process"),
    /** T1 completed before T2 was invoked (any processes). */
    REALTIME("realtime");

    private final String wireName;

    EdgeKind(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public int bit() {
        return 1 << ordinal();
    }

    static int mask(EdgeKind... kinds) {
        int m = 0;
        for (EdgeKind k : kinds) {
            m |= k.bit();
        }
        return m;
    }
}
