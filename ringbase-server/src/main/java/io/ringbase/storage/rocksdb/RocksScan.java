package io.ringbase.storage.rocksdb;

import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.util.NoSuchElementException;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * A lazy scan of a {@link RocksDbEngine} over one RocksDB iterator (an implicit snapshot taken at its
 * creation). One thread at a time; {@link RocksDbEngine#close()} frees it if it is still open.
 */
final class RocksScan implements CloseableIterator<Entry> {
    private final RocksDbEngine engine;
    private final ReadOptions readOptions;
    private final Slice upper;
    private final RocksIterator it;
    private final boolean liveOnly;
    private Entry next;
    private boolean done;

    RocksScan(RocksDbEngine engine, byte[] start, byte[] end, boolean liveOnly) {
        this.engine = engine;
        this.liveOnly = liveOnly;
        this.readOptions = new ReadOptions().setFillCache(true);
        this.upper = end == null ? null : new Slice(end);
        if (upper != null) {
            readOptions.setIterateUpperBound(upper);
        }
        this.it = engine.db.newIterator(engine.data, readOptions);
        it.seek(start);
    }

    @Override
    public boolean hasNext() {
        if (next != null) {
            return true;
        }
        if (done) {
            return false;
        }
        engine.closeLock.readLock().lock();
        try {
            if (engine.closed) {
                throw new IllegalStateException("storage engine is closed");
            }
            long now = engine.options.wallClockMs().getAsLong();
            while (it.isValid()) {
                byte[] value = it.value();
                Entry e = RocksValueFormat.decode(it.key(), value);
                it.next();
                if (!liveOnly || e.isLive(now)) {
                    next = e;
                    return true;
                }
            }
            it.status();
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB scan failed: " + RocksDbEngine.describe(e), e);
        } finally {
            engine.closeLock.readLock().unlock();
        }
        close();
        return false;
    }

    @Override
    public Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Entry e = next;
        next = null;
        return e;
    }

    @Override
    public void close() {
        engine.closeLock.readLock().lock();
        try {
            release();
        } finally {
            engine.closeLock.readLock().unlock();
        }
    }

    /** Frees the native iterator; called with closeLock held (either side). */
    void release() {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
        }
        next = null;
        engine.openScans.remove(this);
        it.close();
        readOptions.close();
        if (upper != null) {
            upper.close();
        }
    }
}
