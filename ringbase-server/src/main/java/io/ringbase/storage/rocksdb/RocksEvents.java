package io.ringbase.storage.rocksdb;

import org.rocksdb.AbstractEventListener;
import org.rocksdb.BackgroundErrorReason;
import org.rocksdb.CompactionJobInfo;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.RocksDB;
import org.rocksdb.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a {@link RocksDbEngine}'s flushes, compactions and background errors, and keeps the last
 * background error for its health; called on RocksDB's threads. Events before the engine is attached
 * (while RocksDB opens) are logged, not counted.
 */
final class RocksEvents extends AbstractEventListener {

    private static final Logger log = LoggerFactory.getLogger(RocksDbEngine.class);

    /** The engine, once opened; {@code null} before. */
    volatile RocksDbEngine engine;

    @Override
    public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
        RocksDbEngine e = engine;
        if (e != null) {
            e.flushes.increment();
        }
    }

    @Override
    public void onCompactionCompleted(RocksDB db, CompactionJobInfo info) {
        RocksDbEngine e = engine;
        if (e != null) {
            e.compactions.increment();
        }
    }

    @Override
    public void onBackgroundError(BackgroundErrorReason reason, Status status) {
        RocksDbEngine e = engine;
        if (e != null) {
            e.diskErrors.increment();
            e.backgroundError.set(reason + " " + status.getCodeString() + " " + status.getState());
        }
        log.error("RocksDB background error in {}: {} {}", reason, status.getCodeString(), status.getState());
    }

    @Override
    public void onErrorRecoveryCompleted(Status old) {
        RocksDbEngine e = engine;
        if (e != null) {
            e.backgroundError.set(null);
        }
    }
}
