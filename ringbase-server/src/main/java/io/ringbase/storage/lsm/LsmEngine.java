package io.ringbase.storage.lsm;

import io.ringbase.os.ThreadPriority;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.EngineStats;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Ingest;
import io.ringbase.storage.InsufficientSpaceException;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.Snapshot;
import io.ringbase.storage.WriteBatch;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.compaction.Cleanup;
import io.ringbase.storage.lsm.compaction.CompactionPicker;
import io.ringbase.storage.lsm.compaction.CompactionPriority;
import io.ringbase.storage.lsm.compaction.CompactionRateLimiter;
import io.ringbase.storage.lsm.compaction.CompactionScheduler;
import io.ringbase.storage.lsm.compaction.SizeTieredPicker;
import io.ringbase.storage.lsm.compaction.TableInfo;
import io.ringbase.storage.lsm.compaction.TombstoneTrigger;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.sstable.BlockCache;
import io.ringbase.storage.lsm.sstable.PinnedSections;
import io.ringbase.storage.lsm.sstable.SstableReader;
import io.ringbase.throttle.Sleeper;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ringbase's own log-structured merge engine: a WAL and a memtable in front of immutable SSTables,
 * with background flush and size-tiered compaction (O'Neil et al., "The Log-Structured Merge-Tree",
 * 1996; the layout follows LevelDB and Cassandra). A facade over one class per concern, as RocksDB's
 * {@code DBImpl} is split around its {@code VersionSet}, {@code FlushJob} and {@code CompactionJob}:
 * <ul>
 *   <li>{@link WritePath}: writes and their backpressure; {@link WalRotation}: the active WAL segment
 *       and memtable, their switch, spare segments;</li>
 *   <li>{@link ReadPath}: point reads and scans over a pinned {@link View};</li>
 *   <li>{@link Flusher}: memtables to SSTables, with retries; {@link CompactionScheduler} and
 *       {@link CompactionJob}: what to merge, and the merge (also of a {@link #cleanup}); {@link Quarantine}:
 *       damaged tables; {@link ObsoleteFiles}: deleting the tables a merge replaced and the WAL segments of flushed memtables, with retries;</li>
 *   <li>{@link StatePublisher}: the only way the live view and the manifest change;</li>
 *   <li>{@link Snapshots}, {@link EngineHealth}, {@link EngineCounters}.</li>
 * </ul>
 *
 * <p><b>Writes</b> reserve room in the active memtable, append to the WAL (durable per the sync policy)
 * and then fill the reserved node, under the read side of {@code switchLock}. Memtables live in native
 * memory ({@link Memtable}); the active one is switched out when it (or its WAL segment) is full and
 * flushed by one background thread. At most one switched-out memtable waits for flushing, so the engine
 * holds at most two memtables' worth of slabs: a writer that would need a second waits (bounded by
 * {@link LsmOptions#flushStallTimeoutMs()}), and {@link #tryApply} declines instead of waiting.
 *
 * <p><b>Reads</b> take the current {@link View} (an immutable snapshot of memtables and tables) and
 * merge by version, so a flush or compaction that races with them changes nothing they see.
 *
 * <p><b>Concurrency</b>: thread-safe. The locks, what each guards and the order in which they are taken:
 * docs/design.md, "Locking in the LSM engine". Recovery: see {@link #open}.
 */
public final class LsmEngine implements ManagedEngine {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    /** Nice value of the compaction thread while it keeps up: it runs on what CPU time is left. */
    static final int COMPACTION_NICE = CompactionPriority.IDLE_NICE;
    /** Seconds {@link #close()} waits for a background thread before interrupting it, and between warnings. */
    static final long STOP_GRACE_S = 10;

    private final DataDirectory dir;
    private final TableFiles files;
    /** Groups the live tables into size tiers for {@link #stats()}, whatever the strategy. */
    private final SizeTieredPicker tierer;
    /** The strategy's picker: decides merges and counts the tables waiting for them. */
    private final CompactionPicker picker;

    private final ExecutorService flushThread =
            Executors.newSingleThreadExecutor(ThreadPriority.background("flush", Flusher.NICE));
    private final ExecutorService compactionThread =
            Executors.newSingleThreadExecutor(ThreadPriority.background("compaction", COMPACTION_NICE));

    private final EngineCounters counters = new EngineCounters();
    private final EngineHealth health = new EngineHealth();
    private final StatePublisher state;
    private final WalRotation rotation;
    private final CompactionScheduler<CompactionJob.Retained> compaction;
    private final Flusher flusher;
    private final WritePath writes;
    private final ReadPath reads;
    private final Snapshots snapshots;

    private LsmEngine(LsmOptions options, DataDirectory dir, TableFiles files, ReadPath.TableProbe probe) {
        this.dir = dir;
        this.files = files;
        this.tierer = new SizeTieredPicker(options.compaction());
        this.picker = options.compaction().picker();
        this.state = new StatePublisher(options.fileIo(), dir.path(), files, health);
        this.rotation =
                new WalRotation(options, dir.path(), files, state, health, counters, flushThread, this::flushPending);
        CompactionPriority priority = CompactionPriority.forOptions(options.compaction());
        Quarantine quarantine = new Quarantine(options, dir.path(), state, counters);
        ObsoleteFiles obsolete = new ObsoleteFiles(
                options.fileIo(), compactionThread, health::closing, counters.backgroundErrors::increment);
        this.compaction = new CompactionScheduler<>(
                new CompactionJob(
                        options,
                        dir.path(),
                        files,
                        state,
                        health,
                        counters,
                        quarantine,
                        priority,
                        new CompactionRateLimiter(
                                options.compaction().rateBytesPerSecond(), System::nanoTime, Sleeper.SYSTEM),
                        picker,
                        obsolete),
                picker,
                new TombstoneTrigger(options.compaction(), options.tombstoneGraceMs()),
                options.wallClockMs(),
                priority,
                compactionThread,
                health::closing,
                log);
        this.flusher = new Flusher(options, dir.path(), files, state, rotation, health, counters, compaction, obsolete);
        this.writes = new WritePath(options, rotation, state, health, counters, compaction, picker);
        this.reads = new ReadPath(state, options.wallClockMs(), probe, compaction::quarantineSoon);
        this.snapshots = new Snapshots(dir.path(), files, state, flusher);
    }

    /**
     * Opens (or creates) the engine in {@code options.dataDir()}: locks the directory, deletes files
     * left half-written by a crash, opens the SSTables the manifest lists, replays the WAL segments
     * from the manifest's replay point (ignoring a torn last record) into SSTables, through memtables
     * of the configured size, and starts a new WAL segment.
     *
     * @throws CorruptionException if the manifest, a listed SSTable or a WAL segment is damaged, or a
     *                             listed SSTable is missing; nothing is deleted or dropped then
     * @throws IOException         if the directory is locked by another process or cannot be used
     */
    public static LsmEngine open(LsmOptions options) throws IOException {
        return open(options, ReadPath.LOCATE);
    }

    /** {@link #open(LsmOptions)} with point reads looking tables up through {@code probe}; for tests. */
    static LsmEngine open(LsmOptions options, ReadPath.TableProbe probe) throws IOException {
        FileIo.createDirectories(options.fileIo(), options.dataDir()); // a new directory's entry fsynced in its parent
        DataDirectory dir = DataDirectory.lock(options.dataDir());
        try {
            Recovery.Result recovered = Recovery.run(
                    options.fileIo(),
                    dir,
                    options.memtableBytes(),
                    options.walRecovery(),
                    new BlockCache(options.blockCacheBytes()),
                    new PinnedSections(options.pinnedSectionBytes()));
            LsmEngine engine = new LsmEngine(options, dir, recovered.files(), probe);
            engine.rotation.start(recovered.walNumber());
            SstableReader.loadClasses(engine.rotation.active().path());
            Memtable first = engine.rotation.newMemtable();
            engine.state.init(new View(first, recovered.walNumber(), List.of(), recovered.tables()));
            first.release(); // views hold memtables: the slabs go with the last view that holds them
            for (LiveTable t : recovered.tables()) {
                t.reader().close(); // ... and tables: a file is unmapped with the last view that holds it
            }
            engine.flushThread.execute(engine.rotation::prepareSpare);
            log.info("compaction: {}", options.compaction().summary());
            engine.compaction.schedule();
            return engine;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /**
     * Flush thread, after a memtable switch: flushes what waits. Through the facade because the flusher
     * switches memtables too, so the rotation is made before it.
     */
    private void flushPending() {
        flusher.flushPending();
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void apply(Entry entry) throws IOException {
        byte[] value = entry.value();
        writes.apply(
                entry.key(),
                entry.version(),
                entry.expiresAtMs(),
                value == null ? null : MemorySegment.ofArray(value),
                entry.typed());
    }

    @Override
    public void apply(byte[] key, long version, long expiresAtMs, MemorySegment value) throws IOException {
        writes.apply(key, version, expiresAtMs, value, false);
    }

    @Override
    public boolean tryApply(byte[] key, long version, long expiresAtMs, MemorySegment value) throws IOException {
        return writes.tryApply(key, version, expiresAtMs, value, false);
    }

    @Override
    public boolean tryApply(Entry entry) throws IOException {
        byte[] value = entry.value();
        return writes.tryApply(
                entry.key(),
                entry.version(),
                entry.expiresAtMs(),
                value == null ? null : MemorySegment.ofArray(value),
                entry.typed());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: reserves memtable room for as many of the entries as it has, appends their WAL records
     * with one write, then fills the reservations; switches to a fresh memtable (as {@link #tryApply})
     * when one fills up mid-batch, at most twice per call.
     */
    @Override
    public boolean tryApplyAll(WriteBatch batch) throws IOException {
        return writes.tryApplyAll(batch);
    }

    @Override
    public boolean writeMayBlock() {
        return writes.writeMayBlock();
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Entry get(byte[] key) throws IOException {
        return reads.get(key);
    }

    @Override
    public boolean read(byte[] key, ReadCursor cursor) throws IOException {
        return reads.read(key, cursor, true) == TryRead.FOUND;
    }

    /**
     * {@inheritDoc} Here: the lookup reaches a table whose point reads go through {@code pread} (it is
     * out of the page cache, {@link SstableReader#readsWithPread()}) and whose Bloom filter does not rule
     * the key out.
     */
    @Override
    public TryRead tryRead(byte[] key, ReadCursor cursor) throws IOException {
        return reads.read(key, cursor, false);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) {
        return reads.scan(start, end, liveOnly, null);
    }

    /** {@inheritDoc} Here the SSTables skip a rejected key's value undecoded; memtables filter decoded entries. */
    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly, KeyFilter keys) {
        return reads.scan(start, end, liveOnly, java.util.Objects.requireNonNull(keys, "keys"));
    }

    /** The largest version stored, or {@link Long#MIN_VALUE} if none; for clocks to observe on start. */
    @Override
    public long maxVersion() {
        return reads.maxVersion();
    }

    // ---------------------------------------------------------------- health and figures

    @Override
    public String unwritableReason() {
        return health.unwritableReason(rotation.active());
    }

    /**
     * The engine's figures now, for metrics and the status page: memtable bytes, live SSTables by
     * size tier, flush, compaction and WAL counters, write stalls and disk errors. Takes no lock the
     * write path takes; the counters are read one by one, so they may be a moment apart.
     */
    @Override
    public EngineStats stats() {
        List<TableInfo> tables = state.current().tables().stream()
                .map(t -> new TableInfo(t.number(), t.reader().fileBytes()))
                .toList();
        List<EngineStats.Tier> tiers = new ArrayList<>();
        for (List<TableInfo> tier : tierer.tiers(tables)) {
            tiers.add(new EngineStats.Tier(
                    tiers.size(),
                    tier.size(),
                    tier.stream().mapToLong(TableInfo::sizeBytes).sum()));
        }
        return counters.stats(
                memtableBytes(),
                tiers,
                files.cache(),
                state.current().tables().stream()
                        .filter(t -> t.reader().readsWithPread())
                        .count(),
                files.pinned().usedBytes());
    }

    /** The readers of the live SSTables, newest first; for tests (no reference is taken). */
    List<SstableReader> liveTables() {
        return state.current().tables().stream().map(LiveTable::reader).toList();
    }

    /**
     * Whether flushes and compaction have caught up: no memtable waits for a flush, no compaction round
     * is queued or running, and nothing in the live tables is due for a merge (a merge postponed for lack
     * of disk space counts as due). For tests and benchmarks that wait for compaction; no lock taken.
     */
    public boolean compactionIdle() {
        return state.current().immutables().isEmpty() && compaction.idle();
    }

    /** Number of live SSTables. */
    @Override
    public int tableCount() {
        return state.current().tables().size();
    }

    /**
     * Native bytes of every memtable of this engine not freed yet, exact: the active and switched-out
     * ones, and flushed ones that a reader (a scan, a read cursor) still pins.
     */
    public long memtableNativeBytes() {
        return counters.memtableNativeBytes.get();
    }

    /** Slab bytes of the active and switched-out memtables, exact. */
    public long memtableBytes() {
        return reads.memtableBytes();
    }

    // ---------------------------------------------------------------- flush, compaction, snapshots

    /**
     * {@inheritDoc}
     *
     * <p>Here: a new SSTable written as the entries come, published by {@link Ingest#finish()} as a flush
     * publishes its table (docs/design.md, "Ingest"). Holds about 1.4 bytes of Bloom filter per
     * {@code maxEntries} off-heap, and a few MiB of buffers, until it ends.
     */
    @Override
    public Ingest ingest(long maxEntries) throws IOException {
        if (health.closing()) {
            throw new IOException("storage engine is closed");
        }
        return new TableIngest(files, state, compaction::schedule, maxEntries);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IOException also if the engine is closing or closed
     */
    @Override
    public void flush() throws IOException {
        if (health.closing()) {
            throw new IOException("storage engine is closed");
        }
        flusher.flush();
    }

    /**
     * Merges every live SSTable into one (a major compaction, as Cassandra's {@code nodetool compact}):
     * on the compaction thread, after any compaction under way, with the usual rules for dropping
     * tombstones and expired entries. Waits for it.
     *
     * @return how many tables were merged (0 if there were none)
     * @throws InsufficientSpaceException if the data directory's file system lacks room for the output
     *         plus two memtable flushes (nothing was changed)
     * @throws IOException if the compaction failed (the tables stay as they were) or the engine closed
     */
    @Override
    public int compactAll() throws IOException {
        return compaction.compactAll();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: flushes the memtables that hold the writes made before the call (not those of writes made
     * since, which a steady write load would never let it finish), then merges every live SSTable into one on the compaction thread (a
     * major compaction, after any compaction under way), leaving out every entry of a rejected key, and
     * publishes it through the manifest as any compaction: a crash mid-cleanup leaves either the old
     * tables or the new one, never a mix, and nothing is changed until the new table is published. Reads
     * see the old tables until then. A write made during the cleanup is kept whatever its key if its
     * memtable is not flushed before the merge takes the live tables (removed, if rejected, otherwise).
     * Logs one INFO line: keys removed, SSTable bytes before and after, milliseconds.
     *
     * @throws IOException also if the flush failed or timed out ({@link LsmOptions#flushStallTimeoutMs()}),
     *         or {@code keep} threw (the cause); the tables then stay as they were
     * @throws io.ringbase.storage.CorruptionException if a table is damaged; it was quarantined if still live
     */
    @Override
    public long cleanup(KeyFilter keep) throws IOException {
        Objects.requireNonNull(keep, "keep");
        if (health.closing()) {
            throw new IOException("storage engine is closed"); // before the flush touches freed memtables
        }
        long started = System.nanoTime();
        flusher.flushWritesSoFar(); // every write acknowledged before the call is in a table the cleanup merges
        Cleanup.Result done = compaction.cleanup(keep);
        log.info(
                "cleanup removed the entries of {} keys this node no longer replicates: SSTables {} bytes before, "
                        + "{} bytes after, in {} ms",
                done.droppedKeys(),
                done.bytesBefore(),
                done.bytesAfter(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return done.droppedKeys();
    }

    /**
     * Takes a snapshot named {@code name}, as Cassandra's {@code nodetool snapshot}: flushes, then
     * hard-links every live SSTable into {@code <data-dir>/snapshots/<name>/} beside a manifest naming
     * exactly those tables, with nothing to replay: a complete data directory as of the flush.
     *
     * @return the snapshot's directory and tables
     * @throws IllegalArgumentException if {@code name} is not a valid snapshot name
     * @throws java.nio.file.FileAlreadyExistsException if a snapshot of that name exists
     */
    @Override
    public Snapshot snapshot(String name) throws IOException {
        return snapshots.take(name);
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops writes, flushes the memtable to an SSTable, aborts a running compaction, closes the WAL,
     * waits until the flush and compaction threads have stopped (so nothing writes to the directory after
     * this returns) and releases the directory lock. SSTables stay mapped until the readers that still
     * hold a view are done. Idempotent.
     *
     * <p>Every step runs even if one before it failed (a final flush that throws still leaves the WAL
     * closed and the lock released); the first failure is thrown at the end, with the later ones
     * suppressed in it.
     *
     * @throws IOException if the final flush, closing the WAL or releasing the lock failed (the WAL keeps
     *         what was not flushed, for the next start)
     */
    @Override
    public void close() throws IOException {
        close(true);
    }

    /** As {@link #close()} without the final flush: the memtable's writes stay in the WAL only. */
    @Override
    public void closeWithoutFlush() throws IOException {
        close(false);
    }

    private void close(boolean flush) throws IOException {
        if (rotation.isClosed()) {
            return;
        }
        health.markClosing();
        Throwable failure = flush ? attempt(null, flusher::flush) : null;
        if (failure != null) {
            log.error("final flush failed; the WAL keeps the data for the next start", failure);
        }
        failure = attempt(failure, () -> {
            IOException walFailure = rotation.close();
            if (walFailure != null) {
                throw walFailure;
            }
        });
        compactionThread.shutdown();
        flushThread.shutdown();
        // No background thread may write to the directory (a table, the manifest) once close returns
        awaitStopped(compactionThread, "compaction");
        awaitStopped(flushThread, "flush");
        failure = attempt(failure, flusher::releaseUnpublished);
        failure = attempt(failure, state::close);
        failure = attempt(failure, dir::close);
        switch (failure) {
            case null -> {}
            case IOException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IOException(failure);
        }
    }

    /**
     * Runs one step of {@link #close()} whatever failed before it.
     *
     * @return {@code failure}, or the step's failure if it is the first, the others suppressed in it
     */
    private static Throwable attempt(Throwable failure, StatePublisher.IoAction step) {
        try {
            step.run();
            return failure;
        } catch (IOException | RuntimeException | Error e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
            return failure;
        }
    }

    /**
     * Waits until {@code pool}'s thread has stopped: after {@value #STOP_GRACE_S} s it is interrupted (a
     * compaction also stops at its next check of closing), then waited for with a WARN line every
     * {@value #STOP_GRACE_S} s, never abandoned, since it might still write to the directory.
     */
    private static void awaitStopped(ExecutorService pool, String what) {
        boolean interrupted = false;
        long waitedS = 0;
        while (true) {
            try {
                if (pool.awaitTermination(STOP_GRACE_S, TimeUnit.SECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
                continue;
            }
            waitedS += STOP_GRACE_S;
            pool.shutdownNow();
            log.warn(
                    "closing: the {} thread has not stopped after {} s; waiting for it before releasing the data "
                            + "directory (it may still write there)",
                    what,
                    waitedS);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs {@code action} while no flush or compaction can publish a new state. Tests use it to copy a
     * consistent image of the directory, as a SIGKILL at that instant would leave it.
     */
    void whileStateFrozen(StatePublisher.IoAction action) throws IOException {
        state.whilePublishLocked(action);
    }
}
