package io.ringbase.cluster.paxos;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * The durable Paxos state of a replica ({@link PaxosState} per key), in an engine of its own under
 * {@code <data-dir>/paxos}, apart from the data (user scans, repair and streaming never see it), as the
 * hint store keeps its own under {@code hints}. Its WAL is synced on every write whatever the node's
 * {@code --wal-sync}: an acceptor answers a promise or an accept only once it would survive a crash, which
 * Paxos needs (a forgotten promise lets an older ballot be accepted after a newer one was promised).
 *
 * <p>Each key's state is the value of that key (docs/format.md, "Paxos state"), versioned 1, 2, 3, ... per
 * key, so that a newer state always wins in the engine; the caller serializes the writes of a key. A state
 * stays after its round (about 40 bytes and the key once committed): a promise must never be forgotten.
 * Thread-safe.
 */
public final class PaxosStore implements Closeable {

    /** Memtable of the store: Paxos states are small and short-lived in memory. */
    static final long MEMTABLE_BYTES = 4L << 20;

    private final StorageEngine engine;
    private final Path dir;

    /** A key's state and the store version it was written with (0: never written). */
    record Stored(PaxosState state, long version) {}

    PaxosStore(StorageEngine engine, Path dir) {
        this.engine = engine;
        this.dir = dir;
    }

    /**
     * Opens (or creates) the store in {@code dir}.
     *
     * @param wallClockMs the wall clock of the engine's housekeeping
     * @throws IOException if the engine cannot be opened
     */
    public static PaxosStore open(Path dir, LongSupplier wallClockMs) throws IOException {
        LsmOptions options = LsmOptions.defaults(dir)
                .withMemtableBytes(MEMTABLE_BYTES)
                .withWalSync(WalSyncPolicy.ALWAYS)
                .withBlockCacheBytes(0)
                .withWallClock(wallClockMs);
        return new PaxosStore(LsmEngine.open(options), dir);
    }

    /**
     * The state of {@code key}, {@link PaxosState#NONE} at version 0 if none was stored.
     *
     * @throws CorruptionException if the stored state does not decode (checksum, format)
     * @throws IOException         as the engine's read
     */
    Stored load(byte[] key) throws IOException {
        Entry e = engine.get(key);
        if (e == null || e.value() == null) {
            return new Stored(PaxosState.NONE, e == null ? 0 : e.version());
        }
        try {
            return new Stored(PaxosState.decode(e.value()), e.version());
        } catch (IllegalArgumentException bad) {
            throw new CorruptionException(dir, -1, "Paxos state of a key: " + bad.getMessage(), bad);
        }
    }

    /**
     * Stores {@code state} for {@code key} over {@code previous} (what {@link #load} returned), durably:
     * synced to the WAL before this returns.
     *
     * @throws IOException if the write or its sync failed (the state may not be stored)
     */
    void save(byte[] key, Stored previous, PaxosState state) throws IOException {
        engine.apply(new Entry(key, previous.version() + 1, Entry.NO_EXPIRY, state.encode()));
    }

    @Override
    public void close() throws IOException {
        engine.close();
    }
}
