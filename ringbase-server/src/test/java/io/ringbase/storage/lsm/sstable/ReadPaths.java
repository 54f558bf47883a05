package io.ringbase.storage.lsm.sstable;

/** Test access to how a table's point reads reach its blocks ({@link ReadPathGauge}). */
public final class ReadPaths {

    private ReadPaths() {}

    /** Makes {@code r}'s point reads use {@code pread}, as two slow reads through its mapping would. */
    public static void forcePread(SstableReader r) {
        ReadPathGauge g = r.readPathGauge();
        while (!g.preads()) {
            g.record(ReadPathGauge.SLOW_NANOS);
        }
    }
}
