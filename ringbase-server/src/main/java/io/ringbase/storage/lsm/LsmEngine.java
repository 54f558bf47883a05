package io.ringbase.storage.lsm;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.logging.LogThrottle;
import io.ringbase.os.ThreadPriority;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.DiskFault;
import io.ringbase.storage.EngineStats;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.InsufficientSpaceException;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.Snapshot;
import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.StoreBusyException;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.WriteBatch;
import io.ringbase.storage.lsm.View.Frozen;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.compaction.CompactionPriority;
import io.ringbase.storage.lsm.compaction.Compactor;
import io.ringbase.storage.lsm.compaction.SizeTieredPicker;
import io.ringbase.storage.lsm.compaction.TableInfo;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.manifest.Manifest;
import io.ringbase.storage.lsm.manifest.ManifestState;
import io.ringbase.storage.lsm.memtable.Memtable;
import io.ringbase.storage.lsm.sstable.BlockCache;
import io.ringbase.storage.lsm.sstable.EntryLocation;
import io.ringbase.storage.lsm.sstable.SstableReader;
import io.ringbase.storage.lsm.sstable.SstableSummary;
import io.ringbase.storage.lsm.wal.WalStats;
import io.ringbase.storage.lsm.wal.WalWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ringbase's own log-structured merge engine: a WAL and a memtable in front of immutable SSTables,
 * with background flush and size-tiered compaction (O'Neil et al., "The Log-Structured Merge-Tree",
 * 1996; the layout follows LevelDB and Cassandra).
 *
 * <p><b>Writes</b> reserve room in the active memtable, append to the WAL (durable per the sync policy)
 * and then fill the reserved node, all under the read side of {@code switchLock}, so that a memtable
 * switch (write side) never separates a record's WAL segment from its memtable, and a record is never
 * in the WAL of a memtable that has no room for it. Memtables live in native memory
 * ({@link Memtable}); the active one is switched out when it (or its WAL segment) is full and flushed
 * by one background thread. At most one switched-out memtable waits for flushing, so the engine holds
 * at most two memtables' worth of slabs: a writer that would need a second waits (bounded by
 * {@link LsmOptions#flushStallTimeoutMs()}), and {@link #tryApply} declines instead of waiting.
 *
 * <p>The next WAL segment is created ahead of time (a spare, created on the flusher thread after each
 * switch), so a switch is a swap of references: no file is created and nothing is fsynced under the
 * lock or on the writer that triggers it. Segments are thus activated in file-number order.
 *
 * <p><b>Reads</b> take the current {@link View} (an immutable snapshot of memtables and tables) and
 * merge by version, so a flush or compaction that races with them changes nothing they see. A reader
 * pins the view while it reads ({@link View#tryRetain()}); a memtable's slabs are freed once no pinned
 * view holds it.
 *
 * <p><b>State changes</b> (flush done, compaction done) are serialized by {@code publishLock}: the new
 * manifest is written (with its fsyncs) first, outside {@code stateLock}, which then covers only the
 * swap of the view, so a memtable switch never waits for a manifest fsync. Recovery: see {@link #open}.
 */
public final class LsmEngine implements ManagedEngine {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);
    /** At most one "compaction postponed" line a minute. */
    private static final LogThrottle NO_ROOM_LOG = new LogThrottle(1, TimeUnit.MINUTES);

    private final LsmOptions options;
    private final DataDirectory dir;
    private final TableFiles files;
    private final SizeTieredPicker picker;
    /** Used on the compaction thread only. */
    private final CompactionPriority compactionPriority;
    private final ReentrantReadWriteLock switchLock = new ReentrantReadWriteLock();
    /** Serializes manifest writes (flush and compaction publishes). Taken before stateLock. */
    private final ReentrantLock publishLock = new ReentrantLock();
    /** Guards view swaps; held only for the swap itself. */
    private final ReentrantLock stateLock = new ReentrantLock();
    private final Condition flushed = stateLock.newCondition();
    /** Nice value of the flush thread: below requests, above compaction (writers wait for flushes). */
    static final int FLUSH_NICE = 5;
    /** A failed flush is retried after this many ms, doubling up to {@link #FLUSH_RETRY_MAX_MS}. */
    static final long FLUSH_RETRY_MIN_MS = 50;
    /** Longest wait between flush retries, ms: writes resume within about this long of a fault clearing. */
    static final long FLUSH_RETRY_MAX_MS = 1000;
    /** A write-path fault is reported by {@link #unwritableReason()} for this long, ms, unless a write succeeds. */
    static final long FAULT_HOLD_MS = 2000;
    /** Nice value of the compaction thread while it keeps up: it runs on what CPU time is left. */
    static final int COMPACTION_NICE = CompactionPriority.IDLE_NICE;

    private final ExecutorService flusher =
            Executors.newSingleThreadExecutor(ThreadPriority.background("flush", FLUSH_NICE));
    private final ExecutorService compactor =
            Executors.newSingleThreadExecutor(ThreadPriority.background("compaction", COMPACTION_NICE));

    private final AtomicBoolean compactionQueued = new AtomicBoolean();

    // Figures for stats(): counted off the write path (flusher, compactor, stalled writers)
    private final WalStats walStats = new WalStats();
    /** Slab bytes of this engine's memtables not freed yet, pinned flushed ones included. */
    private final AtomicLong memtableNativeBytes = new AtomicLong();
    private final LongAdder flushes = new LongAdder();
    private final LongAdder flushBytesIn = new LongAdder();
    private final LongAdder flushBytesOut = new LongAdder();
    private final LongAdder compactions = new LongAdder();
    private final LongAdder compactionBytesIn = new LongAdder();
    private final LongAdder compactionBytesOut = new LongAdder();
    private final LongAdder writeStalls = new LongAdder();
    private final LongAdder writeStallNanos = new LongAdder();
    private final LongAdder backgroundErrors = new LongAdder();
    private final LongAdder quarantined = new LongAdder();

    /** The last write-path fault, until a write succeeds or {@value #FAULT_HOLD_MS} ms pass; for health. */
    private volatile StorageFaultException lastFault;
    private volatile long lastFaultNanos;
    /** The failure of the last flush attempt while a flush is being retried; {@code null} once one succeeds. */
    private volatile StorageFaultException flushFailure;
    /** Flusher thread only: a table written for {@link #flushedFor} whose publish failed, reused on retry. */
    private LiveTable flushedTable;
    private Frozen flushedFor;

    private volatile View view;      // replaced under stateLock; the engine holds one reference to it
    private volatile WalWriter wal;  // replaced under switchLock's write side; read freely
    private NewSegment spare;        // the next WAL segment, created ahead; guarded by this
    private volatile boolean closing;
    private boolean closed;          // guarded by switchLock
    private volatile boolean engineClosed; // set once the last view is released

    private LsmEngine(LsmOptions options, DataDirectory dir, TableFiles files) {
        this.options = options;
        this.dir = dir;
        this.files = files;
        this.picker = new SizeTieredPicker(options.compaction());
        this.compactionPriority = CompactionPriority.forOptions(options.compaction());
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
        DataDirectory dir = DataDirectory.lock(options.dataDir());
        try {
            Recovery.Result recovered = Recovery.run(options.fileIo(), dir, options.memtableBytes(), options.walRecovery(),
                    new BlockCache(options.blockCacheBytes()));
            LsmEngine engine = new LsmEngine(options, dir, recovered.files());
            engine.wal = WalWriter.create(options.fileIo(), FileNames.wal(dir.path(), recovered.walNumber()), options.walSync(),
                    options.walSyncIntervalMs(), engine.walStats);
            engine.wal.onPoisoned(engine::rollSoon);
            SstableReader.loadClasses(engine.wal.path());
            Memtable first = engine.newMemtable();
            engine.view = new View(first, recovered.walNumber(), List.of(), recovered.tables());
            first.release(); // views hold memtables: the slabs go with the last view that holds them
            for (LiveTable t : recovered.tables()) {
                t.reader().close(); // ... and tables: a file is unmapped with the last view that holds it
            }
            engine.flusher.execute(engine::prepareSpare);
            engine.scheduleCompaction();
            return engine;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    private Memtable newMemtable() {
        return new Memtable(options.memtableBytes(), memtableNativeBytes);
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void apply(Entry entry) throws IOException {
        byte[] value = entry.value();
        apply(entry.key(), entry.version(), entry.expiresAtMs(), value == null ? null : MemorySegment.ofArray(value));
    }

    @Override
    public void apply(byte[] key, long version, long expiresAtMs, MemorySegment value) throws IOException {
        long valueLength = value == null ? 0 : value.byteSize();
        if (view.tables().size() >= options.compaction().slowdownTables()) {
            compactionBackpressure();
        }
        long deadline = 0;
        Memtable full;
        while ((full = applyIfRoom(key, version, expiresAtMs, value, valueLength)) != null) {
            if (deadline == 0) {
                deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
            }
            try {
                makeRoom(full, deadline);
            } catch (StorageFaultException | StoreBusyException | InterruptedIOException e) {
                throw e;
            } catch (IOException e) {
                throw noteFault(new StorageFaultException("switching to a fresh WAL segment", e));
            }
        }
    }

    @Override
    public boolean tryApply(byte[] key, long version, long expiresAtMs, MemorySegment value) throws IOException {
        if (everyWriteWaits(view)) {
            return false;
        }
        long valueLength = value == null ? 0 : value.byteSize();
        for (int attempt = 0; attempt < 2; attempt++) {
            Memtable full = applyIfRoom(key, version, expiresAtMs, value, valueLength);
            if (full == null) {
                return true;
            }
            if (!trySwitch(full)) {
                return false;
            }
        }
        return false;
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
        if (everyWriteWaits(view)) {
            return batch.applied() == batch.size();
        }
        int switches = 0;
        while (batch.applied() < batch.size()) {
            Memtable full = applyAllIfRoom(batch);
            if (full != null && (++switches > 2 || !trySwitch(full))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #applyIfRoom} for the entries of {@code batch} from {@link WriteBatch#applied()} on: those
     * that fit in the active memtable are written, with one WAL append for all, and marked applied.
     *
     * @return {@code null} if all are written, else the active memtable, which (or whose WAL segment)
     *         had no room for the next one
     */
    private Memtable applyAllIfRoom(WriteBatch batch) throws IOException {
        switchLock.readLock().lock();
        try {
            WalWriter w = segmentWithRoom();
            Memtable target = view.active();
            if (w == null) {
                return target;
            }
            int from = batch.applied();
            long[] nodes = batch.scratch();
            int to = from;
            while (to < batch.size()) {
                long node = target.reserve(batch.key(to).length, batch.valueLength(to));
                if (node == Memtable.NO_ROOM) {
                    break;
                }
                nodes[to++] = node;
            }
            if (to > from) {
                try {
                    w.appendAll(batch, from, to);
                } catch (IOException e) {
                    throw walAppendFailed(w, e);
                }
                for (int i = from; i < to; i++) {
                    target.fill(nodes[i], batch.key(i), batch.version(i), batch.expiresAtMs(i), batch.value(i));
                }
                target.linkAll(nodes, from, to);
                batch.markApplied(to);
                writeWentThrough();
            }
            return to == batch.size() ? null : target;
        } finally {
            switchLock.readLock().unlock();
        }
    }

    /**
     * Under the read side of switchLock: the active WAL segment, or {@code null} if it is full or was
     * poisoned by a failed write or fsync (the writer then switches to a fresh segment).
     *
     * @throws IOException if the engine is closed
     */
    private WalWriter segmentWithRoom() throws IOException {
        if (closed) {
            throw new IOException("storage engine is closed");
        }
        WalWriter w = wal;
        return w.sizeBytes() >= options.walSegmentBytes() || w.failure() != null ? null : w;
    }

    /** A WAL append to {@code w} failed: rolls to a fresh segment soon and reports the fault. */
    private StorageFaultException walAppendFailed(WalWriter w, IOException e) {
        rollSoon();
        return noteFault(new StorageFaultException("WAL append to " + w.path().getFileName(), e));
    }

    /** A write went through: the disk takes writes again. */
    private void writeWentThrough() {
        if (lastFault != null) {
            lastFault = null;
        }
    }

    /**
     * Reserves room in the active memtable, appends to the WAL and fills the reservation, under the
     * read side of switchLock.
     *
     * @return {@code null} if written, else the active memtable, which (or whose WAL segment) had no
     *         room: nothing was written
     */
    private Memtable applyIfRoom(byte[] key, long version, long expiresAtMs, MemorySegment value, long valueLength)
            throws IOException {
        switchLock.readLock().lock();
        try {
            WalWriter w = segmentWithRoom();
            Memtable target = view.active();
            if (w == null) {
                return target;
            }
            long node = target.reserve(key.length, valueLength);
            if (node == Memtable.NO_ROOM) {
                return target;
            }
            try {
                w.append(key, version, expiresAtMs, value);
            } catch (IOException e) {
                throw walAppendFailed(w, e);
            }
            target.insert(node, key, version, expiresAtMs, value);
            writeWentThrough();
            return null;
        } finally {
            switchLock.readLock().unlock();
        }
    }

    @Override
    public boolean writeMayBlock() {
        View v = view;
        if (everyWriteWaits(v)) {
            return true;
        }
        if (!v.immutables().isEmpty() && isFull(v.active())) {
            return true;
        }
        synchronized (this) {
            return spare == null && isFull(v.active());
        }
    }

    /**
     * Whether any write would wait now, whatever room the memtable has: the append itself waits for an
     * fsync ({@code --wal-sync always}), or compaction backpressure applies (the slowdown trigger).
     */
    private boolean everyWriteWaits(View v) {
        return options.walSync() == WalSyncPolicy.ALWAYS || v.tables().size() >= options.compaction().slowdownTables();
    }

    /**
     * True once the active memtable is nearly full (less room than a small entry needs) or its WAL
     * segment has reached its limit. Takes no lock: a stale answer only delays a switch.
     */
    private boolean isFull(Memtable active) {
        return active.sizeBytes() + Memtable.maxNodeBytes(64, 1024) > active.limitBytes()
                || wal.sizeBytes() >= options.walSegmentBytes();
    }

    /**
     * Write backpressure while compaction is behind (RocksDB's level-0 slowdown and stop triggers):
     * from {@link io.ringbase.storage.lsm.compaction.CompactionOptions#slowdownTables()} live SSTables on,
     * delays the write {@value io.ringbase.storage.lsm.compaction.CompactionOptions#SLOWDOWN_DELAY_MS} ms;
     * from {@link io.ringbase.storage.lsm.compaction.CompactionOptions#stopTables()} on, waits until
     * compaction brings the count below it, at most the flush stall timeout.
     *
     * @throws StoreBusyException if the count stays at the stop trigger for the whole timeout
     */
    private void compactionBackpressure() throws IOException {
        int stop = options.compaction().stopTables();
        long started = System.nanoTime();
        writeStalls.increment();
        try {
            if (view.tables().size() >= stop) {
                scheduleCompaction();
                long deadline = started + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
                awaitFlushes(() -> view.tables().size() >= stop && !closing, deadline,
                        "compaction has fallen behind: " + view.tables().size() + " SSTables, writes stop at " + stop);
            } else {
                try {
                    Thread.sleep(io.ringbase.storage.lsm.compaction.CompactionOptions.SLOWDOWN_DELAY_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while slowed down for compaction");
                }
            }
        } finally {
            writeStallNanos.add(System.nanoTime() - started);
        }
    }

    /**
     * Blocking path: waits (until {@code deadlineNanos}) while another memtable still waits for its
     * flush, then switches to a new memtable and the spare WAL segment (creating it here if the flusher
     * has not yet).
     */
    private void makeRoom(Memtable full, long deadlineNanos) throws IOException {
        boolean stalls = !view.immutables().isEmpty() && view.active() == full; // for stats only
        long started = stalls ? System.nanoTime() : 0;
        try {
            awaitFlushes(() -> !view.immutables().isEmpty() && view.active() == full && !closing, deadlineNanos,
                    "flushing has fallen behind for " + options.flushStallTimeoutMs() + " ms");
        } finally {
            if (stalls) {
                writeStalls.increment();
                writeStallNanos.add(System.nanoTime() - started);
            }
        }
        if (view.active() == full) {
            switchTo(takeSpare(true), full);
        }
    }

    /**
     * Non-blocking path: switches if no other memtable waits for its flush and a spare WAL segment is
     * ready. True if the active memtable was switched (by this call or a concurrent one).
     */
    private boolean trySwitch(Memtable full) throws IOException {
        if (view.active() != full) {
            return true; // another writer switched it already
        }
        if (!view.immutables().isEmpty()) {
            return false;
        }
        NewSegment next = takeSpare(false);
        if (next == null) {
            return false;
        }
        switchTo(next, full);
        return true;
    }

    /**
     * Makes {@code next} the active segment with a new memtable in place of {@code current}, unless
     * {@code current} is no longer active or another memtable still waits for its flush (then
     * {@code next} goes back as the spare); and hands the old pair to the flusher, which
     * closes the old segment (its final fsync) and prepares the next spare before flushing, off the lock.
     */
    private void switchTo(NewSegment next, Memtable current) throws IOException {
        WalWriter old;
        switchLock.writeLock().lock();
        try {
            View v = view;
            if (closed || !v.immutables().isEmpty() || v.active() != current || next.number() <= v.activeWalNumber()) {
                giveBackSpare(next);
                return;
            }
            old = wal;
            stateLock.lock();
            try {
                v = view;
                List<Frozen> imms = new ArrayList<>(v.immutables());
                imms.add(new Frozen(v.active(), v.activeWalNumber()));
                Memtable fresh = newMemtable();
                View switched;
                try {
                    switched = new View(fresh, next.number(), imms, v.tables()); // checks activation order
                } finally {
                    fresh.release(); // views hold memtables: the slabs go with the last view that holds them
                }
                wal = next.writer(); // the segment and its memtable become active together, or neither
                swap(switched);
            } finally {
                stateLock.unlock();
            }
        } finally {
            switchLock.writeLock().unlock();
        }
        WalWriter closing = old;
        flusher.execute(() -> {
            prepareSpare();
            try {
                closing.close();
            } catch (IOException e) {
                // its records are in the memtable now being flushed, which makes them durable
                log.warn("closing WAL segment {} failed; its records are durable once its memtable is flushed",
                        closing.path(), e);
            }
            flushPending();
        });
    }

    /** Holds stateLock. Makes {@code next} current and gives back the engine's reference to the old view. */
    private void swap(View next) {
        View old = view;
        view = next;
        old.release();
    }

    /** A created, empty WAL segment and its file number. */
    private record NewSegment(long number, WalWriter writer) {
        void discard(io.ringbase.storage.lsm.io.FileIo io) throws IOException {
            writer.close();
            io.delete(writer.path());
        }
    }

    /**
     * The spare WAL segment, taken: with {@code create}, made here if there is none (blocking: a file
     * and directory fsync), else {@code null} if there is none.
     */
    private synchronized NewSegment takeSpare(boolean create) throws IOException {
        NewSegment s = spare;
        spare = null;
        if (s == null && create) {
            s = newSegment();
        }
        return s;
    }

    /**
     * Keeps {@code s} as the spare, unless there is one or it is older than the active segment: two
     * writers that each took or made a segment race to switch, and the loser's segment may be lower
     * than the winner's. Activating it later would put a segment below an unflushed one, which a
     * restart replaying from the manifest's point would skip (issue 9, defect 1): it is discarded.
     */
    private synchronized void giveBackSpare(NewSegment s) throws IOException {
        if (spare == null && !closing && s.number() > view.activeWalNumber()) {
            spare = s;
        } else {
            s.discard(options.fileIo());
        }
    }

    /** Flusher thread: creates the spare WAL segment if there is none. */
    private void prepareSpare() {
        synchronized (this) {
            if (spare != null || closing) {
                return;
            }
            try {
                spare = newSegment();
            } catch (IOException | RuntimeException e) {
                log.error("could not create the next WAL segment ahead of time; the next memtable switch will try again",
                        e);
            }
        }
    }

    /** Holds this (numbers are taken in activation order). */
    private NewSegment newSegment() throws IOException {
        long walNumber = files.nextNumber();
        WalWriter writer = WalWriter.create(options.fileIo(), FileNames.wal(dir.path(), walNumber), options.walSync(),
                options.walSyncIntervalMs(), walStats);
        writer.onPoisoned(this::rollSoon);
        return new NewSegment(walNumber, writer);
    }

    /**
     * The current view's live SSTables, each retained (its file stays mapped) without pinning the view's
     * memtables, for compaction: a merge can outlast many flushes, and a whole view would keep the
     * native memory of the memtables it held until the merge ends. Give them back with
     * {@link #releaseTables}.
     */
    private List<LiveTable> acquireTables() {
        View v = acquireView();
        try {
            List<LiveTable> tables = v.tables();
            for (LiveTable t : tables) {
                if (!t.reader().tryRetain()) { // cannot happen: the view holds a reference on each
                    throw new IllegalStateException("a live SSTable was released: " + t.reader().path());
                }
            }
            return tables;
        } finally {
            v.release();
        }
    }

    private static void releaseTables(List<LiveTable> tables) {
        for (LiveTable t : tables) {
            t.reader().release();
        }
    }

    // ---------------------------------------------------------------- reads

    /** The current view, retained: the caller must {@link View#release()} it. */
    private View acquireView() {
        while (true) {
            View v = view;
            if (v.tryRetain()) {
                return v;
            }
            if (engineClosed && view == v) {
                throw new IllegalStateException("storage engine is closed");
            }
        }
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        ReadCursor cursor = GET_CURSOR.get(); // get never runs inside another get: one per thread is enough
        try {
            return read(key, cursor) ? cursor.toEntry() : null;
        } finally {
            cursor.close();
        }
    }

    /** {@link #get}'s cursors, one per thread, so that a get reuses its block buffers instead of allocating them. */
    private static final ThreadLocal<ReadCursor> GET_CURSOR = ThreadLocal.withInitial(ReadCursor::new);

    @Override
    public boolean read(byte[] key, ReadCursor cursor) throws IOException {
        return read(key, cursor, true) == TryRead.FOUND;
    }

    /**
     * {@inheritDoc} Here: the lookup reaches a table whose point reads go through {@code pread} (it is
     * out of the page cache, {@link SstableReader#readsWithPread()}) and whose Bloom filter does not rule
     * the key out.
     */
    @Override
    public TryRead tryRead(byte[] key, ReadCursor cursor) throws IOException {
        return read(key, cursor, false);
    }

    /** {@link #read} or, with {@code mayWait} false, {@link #tryRead}. */
    private TryRead read(byte[] key, ReadCursor cursor, boolean mayWait) throws IOException {
        View v = acquireView();
        cursor.pin(v);
        long prefix = EntryFormat.keyPrefix(key);
        long hash = Memtable.keyHash(key); // once for every memtable's and table's filter
        MemorySegment bestSegment = null;
        long bestOffset = -1;
        long node = v.active().find(key, hash);
        if (node != 0) {
            bestSegment = v.active().segment(node);
            bestOffset = v.active().entryOffset(node);
        }
        // indexed loops, not for-each: escape analysis left a for-each's iterator on the heap (a 32-byte
        // ListItr per read, 19% of a GET's heap bytes in the allocation profile of 2026-11-27 06:03)
        List<Frozen> immutables = v.immutables();
        for (int i = 0; i < immutables.size(); i++) {
            Memtable m = immutables.get(i).memtable();
            long n = m.find(key, hash);
            if (n != 0) {
                MemorySegment s = m.segment(n);
                long o = m.entryOffset(n);
                if (bestSegment == null || EntryFormat.compareNewness(s, o, bestSegment, bestOffset) > 0) {
                    bestSegment = s;
                    bestOffset = o;
                }
            }
        }
        List<LiveTable> tables = v.tables();
        for (int i = 0; i < tables.size(); i++) {
            SstableReader r = tables.get(i).reader();
            if (bestSegment != null && r.maxVersion() < EntryFormat.version(bestSegment, bestOffset)) {
                break; // tables are sorted by maxVersion, descending: none of the rest can be newer
            }
            if (!mayWait && r.readsWithPread() && r.mightContainHash(hash)) {
                cursor.close(); // gives the view back
                return TryRead.WOULD_WAIT;
            }
            EntryLocation probe = ProbeBuffers.probe(cursor);
            if (r.locate(key, prefix, hash, probe) && (bestSegment == null
                    || EntryFormat.compareNewness(probe.segment(), probe.offset(), bestSegment, bestOffset) > 0)) {
                bestSegment = probe.segment();
                bestOffset = probe.offset();
                ProbeBuffers.keepProbe(cursor); // a later probe must not overwrite the block this entry may lie in
            }
        }
        if (bestSegment == null) {
            cursor.close();
            return TryRead.NOT_FOUND;
        }
        cursor.set(bestSegment, bestOffset);
        return TryRead.FOUND;
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) {
        View v = acquireView();
        List<CloseableIterator<Entry>> sources = new ArrayList<>();
        sources.add(v.active().iterator(start, end));
        for (Frozen f : v.immutables()) {
            sources.add(f.memtable().iterator(start, end));
        }
        for (LiveTable t : v.tables()) {
            sources.add(t.reader().iterator(start, end));
        }
        sources.add(CloseableIterator.releasing(v::release));
        return new MergeIterator(sources, liveOnly, options.wallClockMs());
    }

    /** The largest version stored, or {@link Long#MIN_VALUE} if none; for clocks to observe on start. */
    public long maxVersion() {
        View v = acquireView();
        try {
            long max = v.active().maxVersion();
            for (Frozen f : v.immutables()) {
                max = Math.max(max, f.memtable().maxVersion());
            }
            for (LiveTable t : v.tables()) {
                max = Math.max(max, t.reader().maxVersion());
            }
            return max;
        } finally {
            v.release();
        }
    }

    @Override
    public String unwritableReason() {
        if (closing) {
            return "storage engine is closed";
        }
        WalWriter w = wal;
        IOException failure = w.failure();
        if (failure != null) {
            return DiskFault.classify(failure).description() + ": WAL segment " + w.path().getFileName() + " failed ("
                    + failure.getMessage() + "); rolling to a fresh segment";
        }
        StorageFaultException flushing = flushFailure;
        if (flushing != null) {
            return flushing.getMessage() + "; retrying";
        }
        StorageFaultException last = lastFault;
        if (last != null && System.nanoTime() - lastFaultNanos < TimeUnit.MILLISECONDS.toNanos(FAULT_HOLD_MS)) {
            return last.getMessage();
        }
        return null;
    }

    /**
     * The engine's figures now, for metrics and the status page: memtable bytes, live SSTables by
     * size tier, flush, compaction and WAL counters, write stalls and disk errors. Takes no lock the
     * write path takes; the counters are read one by one, so they may be a moment apart.
     */
    public EngineStats stats() {
        List<TableInfo> tables = view.tables().stream()
                .map(t -> new TableInfo(t.number(), t.reader().fileBytes())).toList();
        List<EngineStats.Tier> tiers = new ArrayList<>();
        for (List<TableInfo> tier : picker.tiers(tables)) {
            tiers.add(new EngineStats.Tier(tiers.size(), tier.size(),
                    tier.stream().mapToLong(TableInfo::sizeBytes).sum()));
        }
        return new EngineStats(memtableBytes(), tiers, flushes.sum(), flushBytesIn.sum(), flushBytesOut.sum(),
                compactions.sum(), compactionBytesIn.sum(), compactionBytesOut.sum(), walStats.appends(),
                walStats.appendedBytes(), walStats.writes(), walStats.syncs(), walStats.syncNanos(), writeStalls.sum(),
                writeStallNanos.sum(), backgroundErrors.sum() + walStats.failures(), quarantined.sum(),
                files.cache().hits(), files.cache().misses(),
                view.tables().stream().filter(t -> t.reader().readsWithPread()).count());
    }

    /** The readers of the live SSTables, newest first; for tests (no reference is taken). */
    List<SstableReader> liveTables() {
        return view.tables().stream().map(LiveTable::reader).toList();
    }

    /** Number of live SSTables. */
    public int tableCount() {
        return view.tables().size();
    }

    /**
     * Native bytes of every memtable of this engine not freed yet, exact: the active and switched-out
     * ones, and flushed ones that a reader (a scan, a read cursor) still pins.
     */
    public long memtableNativeBytes() {
        return memtableNativeBytes.get();
    }

    /** Slab bytes of the active and switched-out memtables, exact. */
    public long memtableBytes() {
        View v = acquireView();
        try {
            long bytes = v.active().sizeBytes();
            for (Frozen f : v.immutables()) {
                bytes += f.memtable().sizeBytes();
            }
            return bytes;
        } finally {
            v.release();
        }
    }

    // ---------------------------------------------------------------- flush

    @Override
    public void flush() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
        awaitNoImmutables(deadline);
        Memtable current = view.active();
        if (!current.isEmpty()) {
            switchTo(takeSpare(true), current);
        }
        awaitNoImmutables(deadline);
    }

    private void awaitNoImmutables(long deadlineNanos) throws IOException {
        awaitFlushes(() -> !view.immutables().isEmpty(), deadlineNanos,
                "flush did not finish in " + options.flushStallTimeoutMs() + " ms");
    }

    /** Waits for finished flushes while {@code waiting} holds; {@link StoreBusyException} at the deadline. */
    private void awaitFlushes(BooleanSupplier waiting, long deadlineNanos, String timeoutMessage) throws IOException {
        stateLock.lock();
        try {
            while (waiting.getAsBoolean()) {
                StorageFaultException failing = flushFailure;
                if (failing != null) {
                    throw noteFault(failing.copy()); // the flusher retries by itself; do not wait out the stall timeout
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    throw new StoreBusyException(timeoutMessage);
                }
                flushed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a flush");
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Flusher thread: flushes switched-out memtables, oldest first, retrying a failed flush by itself
     * after {@value #FLUSH_RETRY_MIN_MS} ms, doubling up to {@value #FLUSH_RETRY_MAX_MS} ms (writers that
     * would wait for it fail at once meanwhile, with the cause); gives up only when the engine closes
     * (the WAL keeps the data). Then rolls away from a poisoned WAL segment, if any.
     */
    private void flushPending() {
        long backoffMs = FLUSH_RETRY_MIN_MS;
        while (true) {
            List<Frozen> imms = view.immutables();
            if (imms.isEmpty()) {
                break;
            }
            try {
                flushOne(imms.getFirst());
                backoffMs = FLUSH_RETRY_MIN_MS;
                if (flushFailure != null) {
                    flushFailure = null;
                    log.info("flushing works again");
                }
            } catch (IOException | RuntimeException | Error e) {
                backgroundErrors.increment();
                StorageFaultException failure = new StorageFaultException(
                        "flush of WAL segment " + imms.getFirst().walNumber(), e);
                boolean first = flushFailure == null;
                flushFailure = failure;
                signalFlushWaiters();
                if (first) {
                    log.error("flush of WAL segment {} failed; retrying every {}-{} ms until it works (writes that "
                            + "need room fail meanwhile)", imms.getFirst().walNumber(), FLUSH_RETRY_MIN_MS,
                            FLUSH_RETRY_MAX_MS, e);
                } else {
                    log.warn("flush of WAL segment {} failed again: {}", imms.getFirst().walNumber(), failure.getMessage());
                }
                if (closing) {
                    return; // the WAL segments keep the data for the next start
                }
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                backoffMs = Math.min(2 * backoffMs, FLUSH_RETRY_MAX_MS);
            }
        }
        rollIfPoisoned();
        scheduleCompaction();
    }

    private void signalFlushWaiters() {
        stateLock.lock();
        try {
            flushed.signalAll();
        } finally {
            stateLock.unlock();
        }
    }

    /** Records {@code f} for {@link #unwritableReason()} and returns it. */
    private StorageFaultException noteFault(StorageFaultException f) {
        lastFaultNanos = System.nanoTime();
        lastFault = f;
        return f;
    }

    /** Asks the flusher to roll away from a poisoned WAL segment (the periodic fsync or an append failed). */
    private void rollSoon() {
        try {
            flusher.execute(this::rollIfPoisoned);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    /**
     * Flusher thread: if the active WAL segment is poisoned and no memtable waits for its flush, switches
     * to a fresh segment and a new memtable, so that the memtable whose records were in the poisoned
     * segment (under {@code periodic}, possibly acknowledged but never fsynced) is flushed to an SSTable.
     * A segment that cannot be created is retried with backoff while nothing else is to be done; a
     * writer that needs the switch tries too.
     */
    private void rollIfPoisoned() {
        long backoffMs = FLUSH_RETRY_MIN_MS;
        while (!closing) {
            WalWriter w = wal;
            View v = view;
            if (w.failure() == null || !v.immutables().isEmpty()) {
                return; // healthy, or flushPending calls again once the waiting memtable is flushed
            }
            try {
                switchTo(takeSpare(true), v.active());
                log.warn("rolled from poisoned WAL segment {} to a fresh one ({})", w.path().getFileName(),
                        w.failure().getMessage());
                return;
            } catch (IOException | RuntimeException e) {
                noteFault(new StorageFaultException("rolling from poisoned WAL segment " + w.path().getFileName(), e));
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                backoffMs = Math.min(2 * backoffMs, FLUSH_RETRY_MAX_MS);
            }
        }
    }

    private void flushOne(Frozen frozen) throws IOException {
        long started = System.nanoTime();
        Memtable mt = frozen.memtable();
        long memtableBytes = mt.sizeBytes();
        if (flushedFor != frozen) {
            // a table written by an attempt whose publish failed is reused: retries leave no orphans
            flushedTable = mt.isEmpty() ? null : files.write(mt);
            flushedFor = frozen;
        }
        LiveTable table = flushedTable;
        publishLock.lock();
        try {
            publish(v -> {
                List<Frozen> imms = new ArrayList<>(v.immutables());
                imms.remove(frozen);
                List<LiveTable> tables = new ArrayList<>(v.tables());
                if (table != null) {
                    tables.add(table);
                }
                return new View(v.active(), v.activeWalNumber(), imms, tables);
            });
        } finally {
            publishLock.unlock();
        }
        flushedFor = null;
        flushedTable = null;
        if (table != null) {
            table.reader().close(); // the new view holds the table now
        }
        options.fileIo().delete(FileNames.wal(dir.path(), frozen.walNumber()));
        flushes.increment();
        flushBytesIn.add(memtableBytes);
        if (table != null) {
            flushBytesOut.add(table.reader().fileBytes());
            log.info("flushed memtable ({} bytes) to {} ({} entries, {} bytes) in {} ms", memtableBytes,
                    table.reader().path().getFileName(), table.reader().entryCount(), table.reader().fileBytes(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }

    /**
     * Holds publishLock. Writes the manifest of {@code change} applied to the current view, then swaps
     * in {@code change} applied to the view current at that moment: a memtable switch may have happened
     * while the manifest was written (publishLock keeps the tables as they were), and a switch only adds
     * a segment newer than every one the manifest's replay point covers.
     *
     * @throws IllegalStateException if the manifest's WAL replay point passes a segment not yet flushed
     */
    private void publish(java.util.function.UnaryOperator<View> change) throws IOException {
        View planned = applyChange(change);
        try {
            Manifest.write(options.fileIo(), dir.path(), planned.manifest(files.peekNextNumber()));
        } finally {
            planned.release();
        }
        long replayFrom = planned.walReplayFrom();
        stateLock.lock();
        try {
            View next = change.apply(view);
            if (next.walReplayFrom() < replayFrom) {
                throw new IllegalStateException("manifest replay point " + replayFrom + " passes unflushed WAL segment "
                        + next.walReplayFrom());
            }
            swap(next);
            flushed.signalAll();
        } finally {
            stateLock.unlock();
        }
    }

    private View applyChange(java.util.function.UnaryOperator<View> change) {
        stateLock.lock();
        try {
            return change.apply(view);
        } finally {
            stateLock.unlock();
        }
    }

    // ---------------------------------------------------------------- compaction

    private void scheduleCompaction() {
        if (!closing && compactionQueued.compareAndSet(false, true)) {
            compactor.execute(() -> {
                compactionQueued.set(false);
                compactWhileNeeded();
            });
        }
    }

    private void compactWhileNeeded() {
        while (!closing) {
            List<LiveTable> tables = acquireTables(); // they stay mapped while the merge reads them
            try {
                if (!compactOnce(tables)) {
                    return;
                }
            } finally {
                releaseTables(tables);
            }
        }
    }

    /**
     * Checks that the data directory's file system has room for a compaction's output (at most the size
     * of its inputs) and, besides, for two memtable flushes, so that a compaction never takes the space
     * that flushes, and so writes, need (Cassandra checks free space before a compaction likewise). Seen
     * without it: with a full disk just relieved, a merge filled the freed space and the next flush failed.
     * An unreadable file store does not hold compaction back.
     *
     * @throws InsufficientSpaceException if there is not that much room
     */
    private void requireRoomToCompact(int tableCount, long inputBytes) throws InsufficientSpaceException {
        long usable;
        try {
            usable = Files.getFileStore(dir.path()).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return;
        }
        long needed = inputBytes + 2 * options.memtableBytes();
        if (usable < needed) {
            throw new InsufficientSpaceException("compaction of " + tableCount + " SSTables (" + inputBytes + " bytes)",
                    needed, usable);
        }
    }

    /** One round of {@link #compactWhileNeeded} on {@code tables}: whether to go on. */
    private boolean compactOnce(List<LiveTable> tables) {
        compactionPriority.adjust(tables.size());
        List<Long> pick = picker.pick(tables.stream()
                .map(t -> new TableInfo(t.number(), t.reader().fileBytes())).toList());
        if (pick.isEmpty()) {
            return false;
        }
        try {
            compact(tables, Set.copyOf(pick));
            return true;
        } catch (InsufficientSpaceException e) {
            if (NO_ROOM_LOG.tryLog() >= 0) {
                log.warn("{}; postponed to the next flush. Free space, or disk use keeps growing by the tables "
                        + "compaction would merge", e.getMessage());
            }
            return false; // retried after the next flush
        } catch (CorruptionException e) {
            boolean moved;
            try {
                moved = quarantine(tables, e);
            } catch (IOException | RuntimeException q) {
                e.addSuppressed(q);
                moved = false;
            }
            if (!moved) {
                backgroundErrors.increment();
                log.error("compaction of SSTables {} failed; will retry after the next flush", pick, e);
            }
            return moved;
        } catch (InterruptedIOException e) {
            log.info("compaction aborted for shutdown");
            return false;
        } catch (IOException | RuntimeException e) {
            backgroundErrors.increment();
            log.error("compaction of SSTables {} failed; will retry after the next flush", pick, e);
            return false;
        }
    }

    /**
     * Takes a snapshot named {@code name}, as Cassandra's {@code nodetool snapshot}: flushes, then, under
     * {@code publishLock} (so no flush or compaction changes the live tables meanwhile), hard-links every
     * live SSTable into {@code <data-dir>/snapshots/<name>/} and writes a manifest there naming exactly
     * those tables, with nothing to replay (no WAL segment is part of a snapshot). The directory is
     * then a complete data directory as of the flush: a node started on a copy of it serves that data.
     * SSTables are immutable, so a link shares the file with the live directory at no cost until
     * compaction deletes the original.
     *
     * @return the snapshot's directory and tables
     * @throws IllegalArgumentException if {@code name} is not a valid snapshot name
     * @throws java.nio.file.FileAlreadyExistsException if a snapshot of that name exists
     */
    public Snapshot snapshot(String name) throws IOException {
        Path target = DataDirectory.snapshot(dir.path(), name);
        flush();
        publishLock.lock();
        try {
            Files.createDirectories(target.getParent());
            Files.createDirectory(target);
            List<Long> numbers = new ArrayList<>();
            long bytes = 0;
            for (LiveTable t : view.tables()) {
                Files.createLink(FileNames.sstable(target, t.number()), FileNames.sstable(dir.path(), t.number()));
                numbers.add(t.number());
                bytes += t.reader().fileBytes();
            }
            numbers.sort(null);
            long next = files.peekNextNumber();
            Manifest.write(target, new ManifestState(next, next, numbers)); // fsyncs the file and the directory
            DataDirectory.fsync(target.getParent());
            return new Snapshot(target, numbers.size(), bytes);
        } finally {
            publishLock.unlock();
        }
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
    public int compactAll() throws IOException {
        java.util.concurrent.Future<Integer> done;
        try {
            done = compactor.submit(() -> {
                List<LiveTable> tables = acquireTables(); // they stay mapped while the merge reads them
                try {
                    Set<Long> all = new java.util.HashSet<>();
                    for (LiveTable t : tables) {
                        all.add(t.number());
                    }
                    if (!all.isEmpty()) {
                        compact(tables, all);
                    }
                    return all.size();
                } finally {
                    releaseTables(tables);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new IOException("storage engine is closed");
        }
        try {
            return done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a compaction");
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof CorruptionException c) {
                List<LiveTable> tables = acquireTables();
                try {
                    quarantineOnCompactor(tables, c);
                } finally {
                    releaseTables(tables);
                }
                throw c;
            }
            if (e.getCause() instanceof InsufficientSpaceException no) {
                throw no; // refused before it began: no error of the engine's
            }
            if (e.getCause() instanceof IOException io) {
                backgroundErrors.increment();
                throw io;
            }
            throw new IOException("compaction failed", e.getCause());
        }
    }

    /** The file bytes of those of {@code tables} whose numbers are in {@code pick}: a merge's input. */
    private static long bytesOf(List<LiveTable> tables, Set<Long> pick) {
        long bytes = 0;
        for (LiveTable t : tables) {
            if (pick.contains(t.number())) {
                bytes += t.reader().fileBytes();
            }
        }
        return bytes;
    }

    /**
     * Merges the tables of {@code tables} whose numbers are in {@code pick} into one and publishes it.
     *
     * @throws InsufficientSpaceException before anything is written, see {@link #requireRoomToCompact}
     */
    private void compact(List<LiveTable> tables, Set<Long> pick) throws IOException {
        long started = System.nanoTime();
        List<SstableReader> inputs = new ArrayList<>();
        for (LiveTable t : tables) {
            if (pick.contains(t.number())) {
                inputs.add(t.reader());
            }
        }
        long inputBytes = bytesOf(tables, pick);
        requireRoomToCompact(pick.size(), inputBytes);
        long number = files.nextNumber();
        Path tmp = FileNames.sstableTmp(dir.path(), number);
        SstableSummary summary;
        try {
            summary = Compactor.compact(options.fileIo(), inputs, tmp, droppable(pick), () -> {
                compactionPriority.adjust(view.tables().size()); // behind: at the flush's priority
                return closing;
            });
        } catch (IOException | RuntimeException e) {
            files.deleteQuietly(tmp, e);
            throw e;
        }
        LiveTable output = null;
        if (summary.entryCount() > 0) {
            output = files.install(number, tmp);
        } else {
            options.fileIo().delete(tmp);
        }
        LiveTable added = output;
        publishLock.lock();
        try {
            publishCompaction(pick, added);
        } catch (io.ringbase.storage.lsm.manifest.ManifestNotDurableException e) {
            if (added != null) {
                added.reader().close(); // no view holds it
            }
            throw e; // the manifest in force names the output: it stays (a restart deletes it if unlisted)
        } catch (IOException | RuntimeException e) {
            if (added != null) {
                added.reader().close(); // no view holds it
                files.deleteQuietly(added.reader().path(), e); // in no manifest: an orphan otherwise
            }
            throw e;
        } finally {
            publishLock.unlock();
        }
        if (added != null) {
            added.reader().close(); // the new view holds the table now
        }
        compactions.increment();
        compactionBytesIn.add(inputBytes);
        compactionBytesOut.add(output == null ? 0 : output.reader().fileBytes());
        for (long n : pick) {
            // Readers that still hold an older view keep the inputs mapped; the last one to finish unmaps
            // them (View.release), and the space of the deleted files comes back then.
            options.fileIo().delete(FileNames.sstable(dir.path(), n));
        }
        log.info("compacted {} SSTables ({} bytes) into {} ({} entries, {} bytes) in {} ms", pick.size(), inputBytes,
                output == null ? "nothing" : output.reader().path().getFileName(), summary.entryCount(),
                output == null ? 0 : output.reader().fileBytes(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /** Runs {@link #quarantine} on the compaction thread and waits for it. */
    private void quarantineOnCompactor(List<LiveTable> tables, CorruptionException c) throws IOException {
        try {
            compactor.submit(() -> quarantine(tables, c)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while quarantining");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.RejectedExecutionException e) {
            throw new IOException("quarantine of " + c.file() + " failed", e);
        }
    }

    /**
     * Compaction thread: if {@code damage} lies in one of {@code tables}, drops that table from
     * the live set (a new manifest), moves its file to {@code quarantine/} and logs an ERROR naming the
     * file, the offset and what was wrong, so compaction does not retry a damaged input forever. The
     * table's entries are no longer served: a cluster's repair brings them back from other replicas.
     *
     * @return whether a table was quarantined
     */
    private boolean quarantine(List<LiveTable> tables, CorruptionException damage) throws IOException {
        LiveTable bad = null;
        for (LiveTable t : tables) {
            if (t.reader().path().equals(damage.file())) {
                bad = t;
            }
        }
        if (bad == null) {
            return false;
        }
        long number = bad.number();
        publishLock.lock();
        try {
            publish(now -> {
                List<LiveTable> kept = new ArrayList<>(now.tables());
                kept.removeIf(t -> t.number() == number);
                return new View(now.active(), now.activeWalNumber(), now.immutables(), kept);
            });
        } finally {
            publishLock.unlock();
        }
        Path target = FileNames.quarantined(dir.path(), number);
        Files.createDirectories(target.getParent());
        options.fileIo().rename(FileNames.sstable(dir.path(), number), target);
        options.fileIo().syncDirectory(dir.path());
        quarantined.increment();
        log.error("SSTable {} is damaged at byte {} ({}): moved to {} and dropped from the live set; its entries are "
                + "no longer served (run repair in a cluster)", damage.file().getFileName(), damage.offset(),
                damage.getMessage(), dir.path().relativize(target));
        return true;
    }

    /** Holds publishLock: publishes a compaction of {@code pick} into {@code added} (or into nothing). */
    private void publishCompaction(Set<Long> pick, LiveTable added) throws IOException {
        publish(now -> {
            List<LiveTable> tables = new ArrayList<>();
            for (LiveTable t : now.tables()) {
                if (!pick.contains(t.number())) {
                    tables.add(t);
                }
            }
            if (added != null) {
                tables.add(added);
            }
            return new View(now.active(), now.activeWalNumber(), now.immutables(), tables);
        });
    }

    /**
     * Which entries a compaction of the tables {@code pick} may drop: tombstones and expired entries
     * older than the grace period for whose key no other source may hold an older version that they
     * would otherwise shadow. "Other sources" are read from the current view at each check (tables not
     * being compacted, by their Bloom filters, and memtables), so a memtable that is flushed while the
     * compaction runs is still seen, as a memtable or as its new table.
     */
    private Compactor.Droppable droppable(Set<Long> pick) {
        long now = options.wallClockMs().getAsLong();
        long horizon = now - options.tombstoneGraceMs();
        return (segment, offset) -> {
            long deadAt;
            long expiresAt = EntryFormat.expiresAtMs(segment, offset);
            if (EntryFormat.isTombstone(segment, offset)) {
                deadAt = HybridLogicalClock.physicalMs(EntryFormat.version(segment, offset));
            } else if (expiresAt != Entry.NO_EXPIRY && expiresAt <= now) {
                deadAt = expiresAt;
            } else {
                return false;
            }
            if (deadAt > horizon) {
                return false;
            }
            byte[] key = EntryFormat.copyOf(segment, EntryFormat.keyOffset(offset),
                    EntryFormat.keyLength(segment, offset));
            View current = acquireView();
            try {
                for (LiveTable t : current.tables()) {
                    if (!pick.contains(t.number()) && t.reader().mightContain(key)) {
                        return false;
                    }
                }
                if (current.active().find(key) != 0) {
                    return false;
                }
                for (Frozen f : current.immutables()) {
                    if (f.memtable().find(key) != 0) {
                        return false;
                    }
                }
                return true;
            } finally {
                current.release();
            }
        };
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops writes, flushes the memtable to an SSTable, aborts a running compaction, closes the WAL,
     * waits until the flush and compaction threads have stopped (so nothing writes to the directory after
     * this returns) and releases the directory lock. SSTables stay mapped until the readers that still
     * hold a view are done. Idempotent.
     */
    @Override
    public void close() throws IOException {
        switchLock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
        } finally {
            switchLock.writeLock().unlock();
        }
        closing = true;
        IOException failure = null;
        try {
            flush();
        } catch (IOException e) {
            failure = e;
            log.error("final flush failed; the WAL keeps the data for the next start", e);
        }
        switchLock.writeLock().lock();
        try {
            closed = true;
            wal.close();
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        } finally {
            switchLock.writeLock().unlock();
        }
        try {
            NewSegment unused = takeSpare(false);
            if (unused != null) {
                unused.discard(options.fileIo());
            }
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        }
        compactor.shutdown();
        flusher.shutdown();
        // No background thread may write to the directory (a table, the manifest) once close returns
        awaitStopped(compactor, "compaction");
        awaitStopped(flusher, "flush");
        if (flushedTable != null) {
            flushedTable.reader().close(); // written but never published: no view holds it
            flushedTable = null;
        }
        stateLock.lock();
        try {
            View last = view;
            engineClosed = true;
            last.release(); // readers still holding it keep its memtables until they are done
        } finally {
            stateLock.unlock();
        }
        dir.close();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Waits until {@code pool}'s thread has stopped: after {@value #STOP_GRACE_S} s it is interrupted (a
     * compaction also stops at its next check of {@code closing}), then waited for with a WARN line every
     * {@value #STOP_GRACE_S} s, never abandoned, since it might still write to the directory.
     */
    private static void awaitStopped(java.util.concurrent.ExecutorService pool, String what) {
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
            log.warn("closing: the {} thread has not stopped after {} s; waiting for it before releasing the data "
                    + "directory (it may still write there)", what, waitedS);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Seconds {@link #close()} waits for a background thread before interrupting it, and between warnings. */
    static final long STOP_GRACE_S = 10;

    /**
     * Runs {@code action} while no flush or compaction can publish a new state. Tests use it to copy a
     * consistent image of the directory, as a SIGKILL at that instant would leave it.
     */
    void whileStateFrozen(IoAction action) throws IOException {
        publishLock.lock();
        try {
            action.run();
        } finally {
            publishLock.unlock();
        }
    }

    /** An action that may throw {@link IOException}. */
    interface IoAction {
        void run() throws IOException;
    }

}
