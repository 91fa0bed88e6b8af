package io.faultline.checker.history;

import java.util.List;

/**
 * Reads one record's offset or value without building a {@link MicroOp.Record}: the analyses visit millions of
 * records, and under `analyze`'s quick compiler (no escape analysis) every {@code get(i)} of a packed list would
 * allocate one. Works on any list of records; packed ones are read in place.
 */
public final class Records {
    private Records() {}

    public static long offset(List<MicroOp.Record> records, int i) {
        return records instanceof RecordList packed ? packed.offset(i) : records.get(i).offset();
    }

    public static long value(List<MicroOp.Record> records, int i) {
        return records instanceof RecordList packed ? packed.value(i) : records.get(i).value();
    }
}
