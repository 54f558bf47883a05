package io.ringbase.faults.checker;

import io.ringbase.faults.history.Op;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The "set" workload's operations folded per key: each key is written once, with a unique value, and
 * perhaps deleted once later. What the final state must show follows from the two outcomes.
 */
final class SetOps {

    /** What was done to one key: its write and its delete ({@code null} if none was tried). */
    record Fate(Op write, Op delete) {

        /** The write took effect and no delete may have: the key must be there, with its value. */
        boolean mustExist() {
            return write != null
                    && write.outcome() == Op.Outcome.OK
                    && (delete == null || delete.outcome() == Op.Outcome.FAIL);
        }

        /** The delete took effect (after the write completed): the key must be gone. */
        boolean mustBeGone() {
            return delete != null && delete.outcome() == Op.Outcome.OK;
        }

        /** The write certainly never happened (and so no delete matters): the key must never appear. */
        boolean neverWritten() {
            return write != null && write.outcome() == Op.Outcome.FAIL;
        }
    }

    private SetOps() {}

    /** The fate of every key of {@code ops}, in first-use order. */
    static Map<String, Fate> fates(List<Op> ops) {
        Map<String, Op> writes = new LinkedHashMap<>();
        Map<String, Op> deletes = new LinkedHashMap<>();
        for (Op op : ops) {
            switch (op.f()) {
                case WRITE -> writes.put(op.key(), op);
                case DELETE -> deletes.put(op.key(), op);
                case READ, CAS, CAS_REFUSED -> {}
            }
        }
        Map<String, Fate> out = new LinkedHashMap<>();
        for (Map.Entry<String, Op> w : writes.entrySet()) {
            out.put(w.getKey(), new Fate(w.getValue(), deletes.get(w.getKey())));
        }
        return out;
    }
}
