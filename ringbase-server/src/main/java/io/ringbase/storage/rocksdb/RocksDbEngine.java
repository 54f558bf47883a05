package io.ringbase.storage.rocksdb;

import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.EngineKind;
import io.ringbase.storage.EngineStats;
import io.ringbase.storage.Entry;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.Snapshot;
import io.ringbase.storage.WalSyncPolicy;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.LevelMetaData;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link io.ringbase.storage.StorageEngine} on RocksDB (rocksdbjni): the same contract as
 * {@code io.ringbase.storage.lsm.LsmEngine}, for {@code --engine rocksdb} and as the yardstick our engine
 * is measured against. Its RocksDB settings are {@link RocksTuning}'s, its scans {@link RocksScan}s, its
 * flush and compaction counts {@link RocksEvents}'.
 *
 * <p><b>Layout.</b> {@code <data-dir>/ENGINE} says {@code rocksdb} ({@link EngineKind}); RocksDB's own
 * directory is {@code <data-dir>/rocksdb/} with two column families: {@code default} maps each key to
 * its newest entry ({@link RocksValueFormat}), {@code ringbase-meta} holds the largest version ever
 * written under the key {@code max-version} (u64 big-endian, kept by RocksDB's built-in {@code max}
 * merge operator, so racing writers need no lock for it). docs/format.md, "RocksDB engine".
 *
 * <p><b>Versions.</b> A write reads the stored entry of its key and writes only if it is newer
 * ({@link Entry#compareNewness}), under one of {@value #STRIPES} striped locks: a read-modify-write,
 * because RocksJava cannot run a merge operator or compaction filter written in Java.
 *
 * <p><b>Tombstones and TTL.</b> Tombstones are stored as values (so versions compare against them and
 * repair sees them). For the same reason, tombstones and expired entries are dropped not by a
 * compaction filter but by a purge pass ({@link #purge}): a scan that deletes (a RocksDB delete, which
 * compaction then drops with the older versions below it) every tombstone whose version and every
 * expired entry whose expiry is older than the tombstone grace, re-checked under the key's lock. It
 * runs every {@link RocksDbOptions#purgeIntervalMs()} and at the start of {@link #compactAll}.
 *
 * <p><b>Durability.</b> {@code ALWAYS}: every write is fsynced by RocksDB before it returns;
 * {@code PERIODIC}: every write reaches the OS (survives a process crash) and a background thread
 * fsyncs the WAL every interval ({@link RocksDB#syncWal()}).
 *
 * <p><b>Memory.</b> One LRU block cache of {@link RocksDbOptions#blockCacheBytes()} holds data blocks; index
 * and Bloom filter blocks stay with the open tables (about 2 B per key); at most two memtables of
 * {@link RocksDbOptions#memtableBytes()} exist.
 */
public final class RocksDbEngine implements ManagedEngine {

    private static final Logger log = LoggerFactory.getLogger(RocksDbEngine.class);

    /** Subdirectory of the data directory that RocksDB owns. */
    public static final String ROCKSDB_DIR = "rocksdb";
    /** Lock stripes that serialize read-compare-write per key. */
    static final int STRIPES = 256;

    private static final byte[] MAX_VERSION_KEY = "max-version".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    static {
        RocksDB.loadLibrary();
    }

    final RocksDbOptions options;
    private final DataDirectory dir;
    final RocksDB db;
    final ColumnFamilyHandle data;
    private final ColumnFamilyHandle meta;
    private final List<AutoCloseable> natives; // closed in reverse order after the database
    final WriteOptions writeOptions;
    private final Statistics statistics;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    /** Read side: any call that touches the database; write side: close. */
    final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    /** Scans not closed yet: close() frees their native iterators. */
    final Set<RocksScan> openScans = ConcurrentHashMap.newKeySet();

    private final ScheduledExecutorService background;
    private final AtomicLong maxVersion;
    final LongAdder flushes = new LongAdder();
    final LongAdder compactions = new LongAdder();
    final LongAdder diskErrors = new LongAdder();
    private final LongAdder purged = new LongAdder();
    final AtomicReference<String> backgroundError = new AtomicReference<>();
    volatile boolean closed;
    volatile boolean closing; // set before close waits for calls in flight: a purge or cleanup pass stops

    private RocksDbEngine(
            RocksDbOptions options,
            DataDirectory dir,
            RocksDB db,
            ColumnFamilyHandle data,
            ColumnFamilyHandle meta,
            List<AutoCloseable> natives,
            Statistics statistics) {
        this.options = options;
        this.dir = dir;
        this.db = db;
        this.data = data;
        this.meta = meta;
        this.natives = natives;
        this.statistics = statistics;
        this.writeOptions = new WriteOptions().setSync(options.walSync() == WalSyncPolicy.ALWAYS);
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
        this.maxVersion = new AtomicLong(readMaxVersion());
        this.background = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rocksdb-engine");
            t.setDaemon(true);
            return t;
        });
        if (options.walSync() == WalSyncPolicy.PERIODIC) {
            var _ = background.scheduleWithFixedDelay(
                    this::syncWalQuietly,
                    options.walSyncIntervalMs(),
                    options.walSyncIntervalMs(),
                    TimeUnit.MILLISECONDS);
        }
        var _ = background.scheduleWithFixedDelay(
                this::purgeQuietly, options.purgeIntervalMs(), options.purgeIntervalMs(), TimeUnit.MILLISECONDS);
    }

    /**
     * Opens (or creates) the engine in {@code options.dataDir()}: locks the directory, refuses it if it
     * holds another engine's files ({@link EngineKind#checkDirectory}), writes the {@code ENGINE} marker
     * on first use and opens RocksDB in {@code rocksdb/} (which replays RocksDB's WAL).
     *
     * @throws io.ringbase.storage.WrongEngineException if the directory belongs to the LSM engine
     * @throws io.ringbase.storage.DirectoryLockedException if another process holds it
     * @throws IOException if RocksDB cannot open it (the message is RocksDB's status)
     */
    public static RocksDbEngine open(RocksDbOptions options) throws IOException {
        Path path = options.dataDir();
        Files.createDirectories(path);
        EngineKind.ROCKSDB.checkDirectory(path);
        DataDirectory dir = DataDirectory.lock(path);
        List<AutoCloseable> natives = new ArrayList<>();
        try {
            EngineKind.ROCKSDB.writeMarker(path);
            RocksEvents listener = new RocksEvents();
            RocksTuning.Opening opening = RocksTuning.configure(options, listener, natives);
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            RocksDB db = RocksDB.open(
                    opening.dbOptions(), path.resolve(ROCKSDB_DIR).toString(), opening.families(), handles);
            RocksDbEngine engine =
                    new RocksDbEngine(options, dir, db, handles.get(0), handles.get(1), natives, opening.statistics());
            listener.engine = engine;
            return engine;
        } catch (RocksDBException e) {
            closeAll(natives);
            dir.close();
            throw new IOException("RocksDB cannot open " + path.resolve(ROCKSDB_DIR) + ": " + describe(e), e);
        } catch (IOException | RuntimeException e) {
            closeAll(natives);
            dir.close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void apply(Entry entry) throws IOException {
        byte[] v = entry.value();
        apply(
                entry.key(),
                entry.version(),
                entry.expiresAtMs(),
                v == null ? null : MemorySegment.ofArray(v),
                entry.typed());
    }

    @Override
    public void apply(byte[] key, long version, long expiresAtMs, MemorySegment value) throws IOException {
        apply(key, version, expiresAtMs, value, false);
    }

    private void apply(byte[] key, long version, long expiresAtMs, MemorySegment value, boolean typed)
            throws IOException {
        byte[] encoded = RocksValueFormat.encode(version, expiresAtMs, value, typed);
        Entry incoming = null;
        ReentrantLock stripe = stripe(key);
        enter();
        stripe.lock();
        try {
            byte[] stored = db.get(data, key);
            if (stored != null) {
                incoming = RocksValueFormat.decode(key, encoded);
                if (Entry.compareNewness(RocksValueFormat.decode(key, stored), incoming) >= 0) {
                    return; // an older (or the same) version changes nothing visible
                }
            }
            if (version > maxVersion.get()) {
                maxVersion.accumulateAndGet(version, Math::max);
                try (WriteBatch batch = new WriteBatch()) {
                    batch.put(data, key, encoded);
                    batch.merge(
                            meta,
                            MAX_VERSION_KEY,
                            ByteBuffer.allocate(8).putLong(version).array());
                    db.write(writeOptions, batch);
                }
            } else {
                db.put(data, writeOptions, key, encoded);
            }
        } catch (RocksDBException e) {
            diskErrors.increment();
            throw new IOException("RocksDB write failed: " + describe(e), e);
        } finally {
            stripe.unlock();
            exit();
        }
    }

    /** Always true: a write reads the stored version first, which may read the disk. */
    @Override
    public boolean writeMayBlock() {
        return true;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Entry get(byte[] key) throws IOException {
        enter();
        try {
            byte[] stored = db.get(data, key);
            return stored == null ? null : RocksValueFormat.decode(key, stored);
        } catch (RocksDBException e) {
            throw new IOException("RocksDB read failed: " + describe(e), e);
        } finally {
            exit();
        }
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) throws IOException {
        enter();
        try {
            RocksScan scan = new RocksScan(this, start, end, liveOnly);
            openScans.add(scan);
            return scan;
        } finally {
            exit();
        }
    }

    // ---------------------------------------------------------------- tombstones and expiry

    /**
     * Deletes every tombstone whose version, and every expired entry whose expiry, is older than the
     * tombstone grace at the wall clock's now, each re-checked under its key's lock so a racing newer
     * write is kept. RocksDB's compactions then drop the deletes with what they shadow.
     *
     * @return how many entries were deleted
     */
    public long purge() throws IOException {
        long now = options.wallClockMs().getAsLong();
        long horizon = now - options.tombstoneGraceMs();
        long deleted = 0;
        enter();
        try (ReadOptions ro = new ReadOptions().setFillCache(false);
                RocksIterator it = db.newIterator(data, ro)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                if (closing) {
                    break;
                }
                byte[] value = it.value();
                if (RocksValueFormat.droppable(value, now, horizon)) {
                    byte[] key = it.key();
                    ReentrantLock stripe = stripe(key);
                    stripe.lock();
                    try {
                        byte[] current = db.get(data, key);
                        if (current != null && RocksValueFormat.droppable(current, now, horizon)) {
                            db.delete(data, writeOptions, key);
                            deleted++;
                        }
                    } finally {
                        stripe.unlock();
                    }
                }
            }
            it.status();
        } catch (RocksDBException e) {
            diskErrors.increment();
            throw new IOException("RocksDB purge failed: " + describe(e), e);
        } finally {
            exit();
        }
        purged.add(deleted);
        return deleted;
    }

    private void purgeQuietly() {
        try {
            long n = purge();
            if (n > 0) {
                log.info("purged {} tombstones and expired entries older than the tombstone grace", n);
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                log.error("purge of tombstones and expired entries failed; will retry", e);
            }
        }
    }

    // ---------------------------------------------------------------- administration

    @Override
    public void flush() throws IOException {
        enter();
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            db.flush(fo, List.of(data, meta)); // both: a WAL file is deleted once every family has flushed it
        } catch (RocksDBException e) {
            diskErrors.increment();
            throw new IOException("RocksDB flush failed: " + describe(e), e);
        } finally {
            exit();
        }
    }

    /** Runs {@link #purge}, then RocksDB's full {@code CompactRange} over all keys, and waits for it. */
    @Override
    public int compactAll() throws IOException {
        int before = tableCount();
        purge();
        enter();
        try {
            db.compactRange(data);
        } catch (RocksDBException e) {
            diskErrors.increment();
            throw new IOException("RocksDB compaction failed: " + describe(e), e);
        } finally {
            exit();
        }
        return before;
    }

    /** {@inheritDoc} Here: deletes with RocksDB's own delete, then compacts all keys ({@link RocksCleanup}). */
    @Override
    public long cleanup(KeyFilter keep) throws IOException {
        return RocksCleanup.run(this, keep);
    }

    /**
     * Flushes and writes a RocksDB checkpoint (hard links to the immutable SST files, copies of the rest)
     * into {@code <data-dir>/snapshots/<name>/rocksdb/}, with the {@code ENGINE} marker beside it: a
     * complete data directory for {@code --engine rocksdb}.
     */
    @Override
    public Snapshot snapshot(String name) throws IOException {
        Path target = DataDirectory.snapshot(dir.path(), name);
        if (Files.exists(target)) {
            throw new java.nio.file.FileAlreadyExistsException(target.toString());
        }
        flush();
        enter();
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            Files.createDirectories(target);
            checkpoint.createCheckpoint(target.resolve(ROCKSDB_DIR).toString());
            EngineKind.ROCKSDB.writeMarker(target);
            DataDirectory.fsync(target.getParent());
        } catch (RocksDBException e) {
            throw new IOException("RocksDB checkpoint failed: " + describe(e), e);
        } finally {
            exit();
        }
        int files = 0;
        long bytes = 0;
        try (var stream = Files.list(target.resolve(ROCKSDB_DIR))) {
            for (Path p : stream.toList()) {
                if (p.getFileName().toString().endsWith(".sst")) {
                    files++;
                    bytes += Files.size(p);
                }
            }
        }
        return new Snapshot(target, files, bytes);
    }

    @Override
    public long maxVersion() {
        return maxVersion.get();
    }

    private long readMaxVersion() {
        try {
            byte[] b = db.get(meta, MAX_VERSION_KEY);
            return b == null ? Long.MIN_VALUE : ByteBuffer.wrap(b).getLong();
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot read the largest version: " + describe(e), e);
        }
    }

    /** {@inheritDoc} Here: RocksDB's own figures, mapped by {@link RocksStats}. */
    @Override
    public EngineStats stats() {
        closeLock.readLock().lock();
        try {
            if (closed) {
                return RocksStats.closed(flushes.sum(), compactions.sum(), diskErrors.sum());
            }
            return RocksStats.of(db, data, statistics, flushes.sum(), compactions.sum(), diskErrors.sum());
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB property failed: " + describe(e), e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    @Override
    public int tableCount() {
        closeLock.readLock().lock();
        try {
            if (closed) {
                return 0;
            }
            int n = 0;
            for (LevelMetaData level : db.getColumnFamilyMetaData(data).levels()) {
                n += level.files().size();
            }
            return n;
        } finally {
            closeLock.readLock().unlock();
        }
    }

    /** Entries deleted by purge passes since the engine opened. */
    public long purgedEntries() {
        return purged.sum();
    }

    @Override
    public String unwritableReason() {
        if (closed) {
            return "storage engine is closed";
        }
        String error = backgroundError.get();
        return error == null ? null : "RocksDB stopped writes after a background error: " + error;
    }

    /**
     * Closes open scans, syncs the WAL, waits for calls in flight and closes RocksDB and the lock.
     * Idempotent.
     */
    @Override
    public void close() throws IOException {
        closing = true;
        background.shutdownNow();
        closeLock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (RocksScan s : List.copyOf(openScans)) {
                s.release();
            }
            db.cancelAllBackgroundWork(true);
            try {
                db.syncWal();
            } catch (RocksDBException e) {
                log.warn("WAL sync at close failed: {}", describe(e));
            }
            data.close();
            meta.close();
            db.close();
            writeOptions.close();
            closeAll(natives);
        } finally {
            closeLock.writeLock().unlock();
            dir.close();
        }
    }

    // ---------------------------------------------------------------- internals

    void enter() throws IOException {
        closeLock.readLock().lock();
        if (closed) {
            closeLock.readLock().unlock();
            throw new IOException("storage engine is closed");
        }
    }

    void exit() {
        closeLock.readLock().unlock();
    }

    /** File bytes of the {@code default} column family's SST files; the caller holds the close lock's read side. */
    long sstBytes() {
        return db.getColumnFamilyMetaData(data).size();
    }

    private ReentrantLock stripe(byte[] key) {
        return stripes[(java.util.Arrays.hashCode(key) & 0x7fffffff) % STRIPES];
    }

    private void syncWalQuietly() {
        closeLock.readLock().lock();
        try {
            if (!closed) {
                db.syncWal();
            }
        } catch (RocksDBException e) {
            diskErrors.increment();
            log.error("periodic WAL fsync failed: {}", describe(e));
        } catch (RuntimeException e) { // thrown out of a periodic task, it would cancel every later fsync
            log.error("periodic WAL fsync failed", e);
        } finally {
            closeLock.readLock().unlock();
        }
    }

    static String describe(RocksDBException e) {
        Status s = e.getStatus();
        return s == null ? String.valueOf(e.getMessage()) : s.getCodeString() + ": " + e.getMessage();
    }

    private static void closeAll(List<AutoCloseable> natives) {
        for (int i = natives.size() - 1; i >= 0; i--) {
            try {
                natives.get(i).close();
            } catch (Exception e) {
                log.warn("closing {} failed", natives.get(i).getClass().getSimpleName(), e);
            }
        }
    }
}
