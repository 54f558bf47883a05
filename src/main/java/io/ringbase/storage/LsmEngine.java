package io.ringbase.storage;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.View.Frozen;
import io.ringbase.storage.View.LiveTable;
import io.ringbase.storage.compaction.Compactor;
import io.ringbase.storage.compaction.SizeTieredPicker;
import io.ringbase.storage.compaction.TableInfo;
import io.ringbase.storage.manifest.DataDirectory;
import io.ringbase.storage.manifest.FileNames;
import io.ringbase.storage.manifest.Manifest;
import io.ringbase.storage.memtable.Memtable;
import io.ringbase.storage.sstable.SstableReader;
import io.ringbase.storage.sstable.SstableSummary;
import io.ringbase.storage.wal.WalSyncPolicy;
import io.ringbase.storage.wal.WalWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ringbase's own log-structured merge engine: a WAL and a memtable in front of immutable SSTables,
 * with background flush and size-tiered compaction (O'Neil et al., "The Log-Structured Merge-Tree",
 * 1996; the layout follows LevelDB and Cassandra).
 *
 * <p><b>Writes</b> append to the WAL (durable per the sync policy) and then go into the active
 * memtable, both under the read side of {@code switchLock}, so that a memtable switch (write side)
 * never separates a record's WAL segment from its memtable. A memtable is switched out when it or
 * its WAL segment passes its limit and flushed by one background thread; at most one switched-out
 * memtable waits for flushing, and writers that would need a second wait (bounded by
 * {@link LsmOptions#flushStallTimeoutMs()}).
 *
 * <p><b>Reads</b> take the current {@link View} (an immutable snapshot of memtables and tables) and
 * merge by version, so a flush or compaction that races with them changes nothing they see.
 *
 * <p><b>State changes</b> (flush done, compaction done) write a new manifest and publish a new view
 * under {@code stateLock}. Recovery: see {@link #open}.
 */
public final class LsmEngine implements StorageEngine {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    private final LsmOptions options;
    private final DataDirectory dir;
    private final TableFiles files;
    private final SizeTieredPicker picker;
    private final ReentrantReadWriteLock switchLock = new ReentrantReadWriteLock();
    private final ReentrantLock stateLock = new ReentrantLock();
    private final Condition flushed = stateLock.newCondition();
    private final ExecutorService flusher = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("flush").daemon().factory());
    private final ExecutorService compactor = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("compaction").daemon().factory());

    private final AtomicBoolean compactionQueued = new AtomicBoolean();

    private volatile View view;
    private volatile WalWriter wal; // replaced under switchLock's write side; read freely
    private volatile boolean closing;
    private boolean closed;          // guarded by switchLock

    private LsmEngine(LsmOptions options, DataDirectory dir, TableFiles files) {
        this.options = options;
        this.dir = dir;
        this.files = files;
        this.picker = new SizeTieredPicker(options.compaction());
    }

    /**
     * Opens (or creates) the engine in {@code options.dataDir()}: locks the directory, deletes files
     * left half-written by a crash, opens the SSTables the manifest lists, replays the WAL segments
     * from the manifest's replay point (ignoring a torn last record) into an SSTable, and starts a new
     * WAL segment.
     *
     * @throws CorruptionException if the manifest, a listed SSTable or a WAL segment is damaged, or a
     *                             listed SSTable is missing; nothing is deleted or dropped then
     * @throws IOException         if the directory is locked by another process or cannot be used
     */
    public static LsmEngine open(LsmOptions options) throws IOException {
        DataDirectory dir = DataDirectory.lock(options.dataDir());
        try {
            Recovery.Result recovered = Recovery.run(dir);
            LsmEngine engine = new LsmEngine(options, dir, recovered.files());
            engine.wal = WalWriter.create(FileNames.wal(dir.path(), recovered.walNumber()), options.walSync(),
                    options.walSyncIntervalMs());
            engine.view = new View(new Memtable(), recovered.walNumber(), List.of(), recovered.tables());
            engine.scheduleCompaction();
            return engine;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void apply(Entry entry) throws IOException {
        awaitFlushCapacity();
        Memtable target;
        switchLock.readLock().lock();
        try {
            if (closed) {
                throw new IOException("storage engine is closed");
            }
            wal.append(entry);
            target = view.active();
            target.put(entry);
        } finally {
            switchLock.readLock().unlock();
        }
        if (isFull(target)) {
            maybeSwitch();
        }
    }

    @Override
    public boolean writeMayBlock() {
        if (options.walSync() == WalSyncPolicy.ALWAYS) {
            return true;
        }
        View v = view;
        return !v.immutables().isEmpty() && isFull(v.active());
    }

    /**
     * True once the active memtable or its WAL segment has reached its limit. Takes no lock: a stale
     * WAL reference only delays a switch to the next write.
     */
    private boolean isFull(Memtable active) {
        return active.sizeBytes() >= options.memtableBytes() || wal.sizeBytes() >= options.walSegmentBytes();
    }

    /** Waits (bounded) while the active memtable is full and another one still waits for its flush. */
    private void awaitFlushCapacity() throws IOException {
        View v = view;
        if (v.immutables().isEmpty() || !isFull(v.active())) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
        awaitFlushes(() -> !view.immutables().isEmpty() && isFull(view.active()) && !closing, deadline,
                "flushing has fallen behind for " + options.flushStallTimeoutMs() + " ms");
    }

    /**
     * Switches the active memtable out if it is full and no other one waits for its flush. The next WAL
     * segment is created (file and directory fsynced) before the write lock is taken, so other writes
     * go on meanwhile; the lock covers only the swap.
     */
    private void maybeSwitch() throws IOException {
        if (!switchNeeded()) {
            return;
        }
        NewSegment next = newSegment();
        boolean used = false;
        switchLock.writeLock().lock();
        try {
            if (!closed && switchNeeded()) {
                switchTo(next);
                used = true;
            }
        } finally {
            switchLock.writeLock().unlock();
        }
        if (!used) { // another writer switched first
            next.discard();
        }
    }

    private boolean switchNeeded() {
        View v = view;
        return v.immutables().isEmpty() && isFull(v.active());
    }

    /** A created, empty WAL segment and its file number. */
    private record NewSegment(long number, WalWriter writer) {
        void discard() throws IOException {
            writer.close();
            Files.deleteIfExists(writer.path());
        }
    }

    private NewSegment newSegment() throws IOException {
        long walNumber = files.nextNumber();
        return new NewSegment(walNumber,
                WalWriter.create(FileNames.wal(dir.path(), walNumber), options.walSync(), options.walSyncIntervalMs()));
    }

    /** Starts a new memtable and WAL segment and hands the old pair to the flusher. Holds switchLock. */
    private void switchMemtable() throws IOException {
        switchTo(newSegment());
    }

    /**
     * Holds switchLock: makes {@code next} the active segment with a new memtable and hands the old pair
     * to the flusher, which closes the old segment (its final fsync) before flushing, off the lock.
     */
    private void switchTo(NewSegment next) {
        WalWriter old = wal;
        wal = next.writer();
        stateLock.lock();
        try {
            View v = view;
            List<Frozen> imms = new ArrayList<>(v.immutables());
            imms.add(new Frozen(v.active(), v.activeWalNumber()));
            view = new View(new Memtable(), next.number(), imms, v.tables());
        } finally {
            stateLock.unlock();
        }
        flusher.execute(() -> {
            try {
                old.close();
            } catch (IOException e) {
                // its records are in the memtable now being flushed, which makes them durable
                log.warn("closing WAL segment {} failed; its records are durable once its memtable is flushed",
                        old.path(), e);
            }
            flushPending();
        });
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Entry get(byte[] key) throws IOException {
        View v = view;
        Entry best = v.active().get(key);
        for (Frozen f : v.immutables()) {
            best = Entry.newer(best, f.memtable().get(key));
        }
        for (LiveTable t : v.tables()) {
            if (best != null && t.reader().maxVersion() < best.version()) {
                break; // tables are sorted by maxVersion, descending: none of the rest can be newer
            }
            best = Entry.newer(best, t.reader().get(key));
        }
        return best;
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, boolean liveOnly) {
        View v = view;
        List<CloseableIterator<Entry>> sources = new ArrayList<>();
        sources.add(v.active().iterator(start, end));
        for (Frozen f : v.immutables()) {
            sources.add(f.memtable().iterator(start, end));
        }
        for (LiveTable t : v.tables()) {
            sources.add(t.reader().iterator(start, end));
        }
        return new MergeIterator(sources, liveOnly, options.wallClockMs());
    }

    /** The largest version stored, or {@link Long#MIN_VALUE} if none; for clocks to observe on start. */
    public long maxVersion() {
        View v = view;
        long max = v.active().maxVersion();
        for (Frozen f : v.immutables()) {
            max = Math.max(max, f.memtable().maxVersion());
        }
        for (LiveTable t : v.tables()) {
            max = Math.max(max, t.reader().maxVersion());
        }
        return max;
    }

    /** Number of live SSTables. */
    public int tableCount() {
        return view.tables().size();
    }

    // ---------------------------------------------------------------- flush

    @Override
    public void flush() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.flushStallTimeoutMs());
        awaitNoImmutables(deadline);
        switchLock.writeLock().lock();
        try {
            if (!closed && !view.active().isEmpty() && view.immutables().isEmpty()) {
                switchMemtable();
            }
        } finally {
            switchLock.writeLock().unlock();
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

    /** Flusher thread: flushes switched-out memtables, oldest first, retrying on I/O errors. */
    private void flushPending() {
        while (true) {
            List<Frozen> imms = view.immutables();
            if (imms.isEmpty()) {
                break;
            }
            try {
                flushOne(imms.getFirst());
            } catch (IOException | RuntimeException e) {
                log.error("flush of WAL segment {} failed; retrying in 1 s (writes stall once the next memtable fills)",
                        imms.getFirst().walNumber(), e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
        try {
            maybeSwitch();
        } catch (IOException e) {
            log.error("could not switch the memtable after a flush", e);
        }
        scheduleCompaction();
    }

    private void flushOne(Frozen frozen) throws IOException {
        long started = System.nanoTime();
        Memtable mt = frozen.memtable();
        LiveTable table = mt.isEmpty() ? null : files.write(mt.iterator(null, null), mt.count());
        stateLock.lock();
        try {
            View v = view;
            List<Frozen> imms = new ArrayList<>(v.immutables());
            imms.remove(frozen);
            List<LiveTable> tables = new ArrayList<>(v.tables());
            if (table != null) {
                tables.add(table);
            }
            publish(new View(v.active(), v.activeWalNumber(), imms, tables));
            flushed.signalAll();
        } finally {
            stateLock.unlock();
        }
        Files.deleteIfExists(FileNames.wal(dir.path(), frozen.walNumber()));
        if (table != null) {
            log.info("flushed memtable ({} bytes) to {} ({} entries, {} bytes) in {} ms", mt.sizeBytes(),
                    table.reader().path().getFileName(), table.reader().entryCount(), table.reader().fileBytes(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }

    /** Makes {@code next} durable in the manifest, then visible to readers. Holds stateLock. */
    private void publish(View next) throws IOException {
        Manifest.write(dir.path(), next.manifest(files.peekNextNumber()));
        view = next;
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
            View v = view;
            List<Long> pick = picker.pick(v.tables().stream()
                    .map(t -> new TableInfo(t.number(), t.reader().fileBytes())).toList());
            if (pick.isEmpty()) {
                return;
            }
            try {
                compact(v, Set.copyOf(pick));
            } catch (InterruptedIOException e) {
                log.info("compaction aborted for shutdown");
                return;
            } catch (IOException | RuntimeException e) {
                log.error("compaction of SSTables {} failed; will retry after the next flush", pick, e);
                return;
            }
        }
    }

    private void compact(View v, Set<Long> pick) throws IOException {
        long started = System.nanoTime();
        List<SstableReader> inputs = new ArrayList<>();
        long inputBytes = 0;
        for (LiveTable t : v.tables()) {
            if (pick.contains(t.number())) {
                inputs.add(t.reader());
                inputBytes += t.reader().fileBytes();
            }
        }
        long number = files.nextNumber();
        Path tmp = FileNames.sstableTmp(dir.path(), number);
        SstableSummary summary;
        try {
            summary = Compactor.compact(inputs, tmp, droppable(pick), () -> closing);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        LiveTable output = null;
        if (summary.entryCount() > 0) {
            output = files.install(number, tmp);
        } else {
            Files.deleteIfExists(tmp);
        }
        stateLock.lock();
        try {
            View now = view;
            List<LiveTable> tables = new ArrayList<>();
            for (LiveTable t : now.tables()) {
                if (!pick.contains(t.number())) {
                    tables.add(t);
                }
            }
            if (output != null) {
                tables.add(output);
            }
            publish(new View(now.active(), now.activeWalNumber(), now.immutables(), tables));
        } finally {
            stateLock.unlock();
        }
        for (long n : pick) {
            // Readers that still iterate the old tables keep their mappings until the GC unmaps them.
            Files.deleteIfExists(FileNames.sstable(dir.path(), n));
        }
        log.info("compacted {} SSTables ({} bytes) into {} ({} entries, {} bytes) in {} ms", pick.size(), inputBytes,
                output == null ? "nothing" : output.reader().path().getFileName(), summary.entryCount(),
                output == null ? 0 : output.reader().fileBytes(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /**
     * Which entries a compaction of the tables {@code pick} may drop: tombstones and expired entries
     * older than the grace period for whose key no other source may hold an older version that they
     * would otherwise shadow. "Other sources" are read from the current view at each check (tables not
     * being compacted, by their Bloom filters, and memtables), so a memtable that is flushed while the
     * compaction runs is still seen, as a memtable or as its new table.
     */
    private Predicate<Entry> droppable(Set<Long> pick) {
        long now = options.wallClockMs().getAsLong();
        long horizon = now - options.tombstoneGraceMs();
        return e -> {
            long deadAt;
            if (e.isTombstone()) {
                deadAt = HybridLogicalClock.physicalMs(e.version());
            } else if (e.isExpired(now)) {
                deadAt = e.expiresAtMs();
            } else {
                return false;
            }
            if (deadAt > horizon) {
                return false;
            }
            View current = view;
            for (LiveTable t : current.tables()) {
                if (!pick.contains(t.number()) && t.reader().mightContain(e.key())) {
                    return false;
                }
            }
            if (current.active().get(e.key()) != null) {
                return false;
            }
            for (Frozen f : current.immutables()) {
                if (f.memtable().get(e.key()) != null) {
                    return false;
                }
            }
            return true;
        };
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops writes, flushes the memtable to an SSTable, aborts a running compaction, closes the WAL and
     * releases the directory lock. Idempotent.
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
        compactor.shutdown();
        flusher.shutdown();
        try {
            compactor.awaitTermination(10, TimeUnit.SECONDS);
            flusher.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        dir.close();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Runs {@code action} while no flush or compaction can publish a new state. Tests use it to copy a
     * consistent image of the directory, as a SIGKILL at that instant would leave it.
     */
    void whileStateFrozen(IoAction action) throws IOException {
        stateLock.lock();
        try {
            action.run();
        } finally {
            stateLock.unlock();
        }
    }

    /** An action that may throw {@link IOException}. */
    interface IoAction {
        void run() throws IOException;
    }

}
