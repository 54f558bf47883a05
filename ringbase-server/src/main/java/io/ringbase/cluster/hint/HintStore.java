package io.ringbase.cluster.hint;

import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable hints of one coordinator: an {@link LsmEngine} of its own (under {@code <data-dir>/hints})
 * holding one entry per (target, key), encoded by {@link HintFormat} ({@code docs/format.md}, "Hints").
 *
 * <p>The stored entry's version is the hinted entry's version, so a newer hint for the same key and
 * target replaces an older one (the engine keeps the newest), and an older one arriving later is
 * ignored. A delivered hint is removed by a tombstone with the same version: tombstones win version ties
 * ({@link Entry#compareNewness}), while a newer hint stored meanwhile outlives it.
 *
 * <p>Bounds ({@link HintOptions}): a hint that would take {@link #totalBytes()} past
 * {@code maxTotalBytes} is dropped when added; a hint older than {@code maxAgeMs} is dropped (removed)
 * when {@link #page} reads it instead of being returned. Both are counted and logged (at most one WARN
 * line per target and reason per minute).
 *
 * <p>Thread-safe. Adds and removals are serialised by one lock (each is one WAL append), reads are not.
 */
public final class HintStore implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(HintStore.class);

    /** Memtable size of the hint engine, bytes: hints are few and short-lived next to the data. */
    static final long MEMTABLE_BYTES = 4L << 20;

    private final LsmEngine engine;
    private final Path dir;
    private final HintOptions options;
    private final LongSupplier wallClockMs;
    private final DropLog dropLog = new DropLog(log);

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Tally> tallies = new HashMap<>(); // by target URL, guarded by lock
    private long totalBytes; // guarded by lock

    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong droppedAge = new AtomicLong();
    private final AtomicLong droppedBytes = new AtomicLong();
    private final AtomicLong droppedOversize = new AtomicLong();

    /** Pending hints for one target (their bytes are counted only in total, {@link #totalBytes()}). */
    private static final class Tally {
        long hints;
    }

    private HintStore(LsmEngine engine, Path dir, HintOptions options, LongSupplier wallClockMs) {
        this.engine = engine;
        this.dir = dir;
        this.options = options;
        this.wallClockMs = wallClockMs;
    }

    /**
     * Opens (or creates) the hint store in {@code dir} with the periodic WAL policy and the system clock.
     *
     * @see #open(Path, HintOptions, WalSyncPolicy, LongSupplier)
     */
    public static HintStore open(Path dir, HintOptions options) throws IOException {
        return open(dir, options, WalSyncPolicy.PERIODIC, TimeSource.SYSTEM, i -> null);
    }

    /**
     * Opens (or creates) the hint store in {@code dir} without a list to migrate legacy hints with (any
     * are dropped with a WARN line).
     *
     * @see #open(Path, HintOptions, WalSyncPolicy, LongSupplier, IntFunction)
     */
    public static HintStore open(Path dir, HintOptions options, WalSyncPolicy walSync, LongSupplier wallClockMs)
            throws IOException {
        return open(dir, options, walSync, wallClockMs, i -> null);
    }

    /**
     * Opens (or creates) the hint store in {@code dir} and counts the pending hints and their bytes with
     * one scan.
     *
     * <p>Migration: hints of the legacy format ({@code HintFormat} version 1, keyed by the target's
     * position in {@code --cluster}) are rewritten in the current format (keyed by the target's URL),
     * addressed to the node at that position of the list this node starts with, and the legacy records
     * removed, once. The rule, stated in docs/format.md: do not reorder {@code --cluster} in the same
     * restart as the upgrade to this version. A legacy hint whose position is past the end of the list is
     * dropped with a WARN line (anti-entropy repairs that replica).
     *
     * @param dir         the hint directory, normally {@code <data-dir>/hints}; created if absent
     * @param options     the age and byte bounds
     * @param walSync     WAL policy: when {@link #add} is durable (use the node's)
     * @param wallClockMs Unix epoch ms; stamps hints and decides their age
     * @param legacyTargets the URL of the node at a list position in {@code --cluster}, or null past its
     *                      end; used only to migrate legacy hints
     * @throws io.ringbase.storage.CorruptionException if a file of the engine, or a stored hint, is damaged
     * @throws IOException if the directory is locked or cannot be used
     */
    public static HintStore open(
            Path dir,
            HintOptions options,
            WalSyncPolicy walSync,
            LongSupplier wallClockMs,
            IntFunction<String> legacyTargets)
            throws IOException {
        Objects.requireNonNull(legacyTargets, "legacyTargets");
        Objects.requireNonNull(options, "options");
        LsmOptions lsm = LsmOptions.defaults(dir)
                .withMemtableBytes(MEMTABLE_BYTES)
                .withWalSync(walSync)
                .withBlockCacheBytes(0) // hints are read by scans, which the block cache does not serve
                .withTombstoneGraceMs(0)
                .withWallClock(wallClockMs);
        LsmEngine engine = LsmEngine.open(lsm);
        HintStore store = new HintStore(engine, dir, options, wallClockMs);
        try {
            store.countPending(legacyTargets);
        } catch (IOException | RuntimeException e) {
            engine.close();
            throw e;
        }
        return store;
    }

    private void countPending(IntFunction<String> legacyTargets) throws IOException {
        List<Entry> legacy = new ArrayList<>();
        try (CloseableIterator<Entry> it = engine.scan(new byte[0], null, true)) {
            while (it.hasNext()) {
                Entry e = it.next();
                if (HintFormat.formatVersionOf(e) == HintFormat.LEGACY_FORMAT_VERSION) {
                    legacy.add(e);
                    continue;
                }
                Hint h = HintFormat.decode(e, dir); // refuses damaged hints now rather than at delivery
                Tally t = tallies.computeIfAbsent(h.target(), i -> new Tally());
                t.hints++;
                totalBytes += EntryFormat.encodedSize(e);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        migrate(legacy, legacyTargets);
        if (totalBytes > 0) {
            log.info("{} holds {} pending hints ({} bytes) for nodes {}", dir, pendingHints(), totalBytes, targets());
        }
    }

    private void migrate(List<Entry> legacy, IntFunction<String> legacyTargets) throws IOException {
        if (legacy.isEmpty()) {
            return;
        }
        int migrated = 0;
        int dropped = 0;
        for (Entry old : legacy) {
            Hint h = HintFormat.decodeLegacy(old, dir, legacyTargets);
            if (h == null || !add(h)) {
                dropped++;
            } else {
                migrated++;
            }
            lock.lock();
            try {
                engine.apply(Entry.tombstone(old.key(), old.version()));
            } finally {
                lock.unlock();
            }
        }
        log.warn(
                "{}: migrated {} hints from the list-position format to the node-URL format, addressed to "
                        + "the nodes at those positions of the current --cluster list; dropped {} (past the list's end "
                        + "or superseded); anti-entropy repairs what was dropped",
                dir,
                migrated,
                dropped);
    }

    public HintOptions options() {
        return options;
    }

    /**
     * Stores a hint of {@code entry} for {@code target}, stamped with the current wall clock. Nothing is
     * stored (and {@code false} returned) if the store already holds the same or a newer version of the
     * key for the target, or has already delivered it (while its removal tombstone lasts); or if the hint
     * is dropped: it would take {@link #totalBytes()} past {@code maxTotalBytes}, or the entry's key is
     * longer than 65,534 bytes or its value longer than 16 MiB - 18 bytes (no room for the hint fields).
     * Drops are counted and logged.
     *
     * @return whether the hint was stored; durable on return per the WAL policy
     * @throws IOException if the engine's write failed (the hint is then not stored)
     */
    public boolean add(NodeId target, Entry entry) throws IOException {
        return add(new Hint(target.toString(), entry, wallClockMs.getAsLong()));
    }

    private boolean add(Hint hint) throws IOException {
        String target = hint.target();
        Entry entry = hint.entry();
        if (!HintFormat.fits(target, entry)) {
            droppedOversize.incrementAndGet();
            dropLog.dropped(target, DropLog.Reason.OVERSIZE, entry);
            return false;
        }
        Entry record = HintFormat.encode(hint);
        long bytes = EntryFormat.encodedSize(record);
        lock.lock();
        try {
            Entry existing = engine.get(record.key());
            if (existing != null && existing.version() >= record.version()) {
                return false; // a newer or the same version is pending, or was delivered
            }
            long replaced = existing == null || existing.isTombstone() ? 0 : EntryFormat.encodedSize(existing);
            if (totalBytes - replaced + bytes > options.maxTotalBytes()) {
                droppedBytes.incrementAndGet();
                dropLog.dropped(
                        target, DropLog.Reason.BYTES, totalBytes + " of " + options.maxTotalBytes() + " bytes used");
                return false;
            }
            engine.apply(record);
            Tally t = tallies.computeIfAbsent(target, i -> new Tally());
            if (replaced == 0) {
                t.hints++;
            }
            totalBytes += bytes - replaced;
            stored.incrementAndGet();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Up to {@code maxHints} of the hints of the node with URL {@code target} with user key {@code >= start}, in key order,
     * stopping after the hint that takes the page to {@code maxBytes} stored bytes (so a page holds at
     * least one hint if any is left). Hints older than {@code maxAgeMs} met on the way are removed,
     * counted and logged instead of returned (they still count toward both limits, so a page is
     * bounded work).
     *
     * @param start    inclusive first user key; an empty array for the first page
     * @param maxHints at least 1
     * @param maxBytes bytes of stored hints (as {@link #totalBytes()} counts them), at least 1
     * @throws IOException if the engine cannot be read, or a stored hint is damaged
     *                     ({@link io.ringbase.storage.CorruptionException})
     */
    public HintPage page(String target, byte[] start, int maxHints, long maxBytes) throws IOException {
        if (maxHints < 1 || maxBytes < 1) {
            throw new IllegalArgumentException(
                    "maxHints and maxBytes must be at least 1, got " + maxHints + " and " + maxBytes);
        }
        List<Hint> fresh = new ArrayList<>();
        List<Hint> aged = new ArrayList<>();
        byte[] next = null;
        long horizon = wallClockMs.getAsLong() - options.maxAgeMs();
        try (CloseableIterator<Entry> it =
                engine.scan(HintFormat.key(target, start), HintFormat.targetEnd(target), true)) {
            int seen = 0;
            long bytes = 0;
            while (it.hasNext()) {
                if (seen == maxHints || bytes >= maxBytes) {
                    next = successor(fresh, aged);
                    break;
                }
                Entry stored = it.next();
                Hint h = HintFormat.decode(stored, dir);
                (h.createdAtMs() < horizon ? aged : fresh).add(h);
                seen++;
                bytes += EntryFormat.encodedSize(stored);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Hint h : aged) {
            if (remove(h)) {
                droppedAge.incrementAndGet();
                dropLog.dropped(
                        target,
                        DropLog.Reason.AGE,
                        "stored at " + h.createdAtMs() + " ms, window " + options.maxAgeMs() + " ms");
            }
        }
        return new HintPage(fresh, next);
    }

    /** The user key just after the last one of a full page: that key plus a 0x00 byte. */
    private static byte[] successor(List<Hint> fresh, List<Hint> aged) {
        byte[] a = fresh.isEmpty() ? null : fresh.getLast().entry().key();
        byte[] b = aged.isEmpty() ? null : aged.getLast().entry().key();
        byte[] last = a == null ? b : b == null ? a : (Arrays.compareUnsigned(a, b) >= 0 ? a : b);
        return Arrays.copyOf(last, last.length + 1);
    }

    /**
     * Removes {@code hint} after its target acknowledged it, and counts it as delivered. A newer hint
     * for the same key and target stored since {@code hint} was read stays.
     *
     * @throws IOException if the engine's write failed (the hint then stays and is delivered again)
     */
    public void delivered(Hint hint) throws IOException {
        remove(hint);
        delivered.incrementAndGet();
    }

    /** Tombstones {@code hint}'s version; true if that removed the pending hint (it was not replaced). */
    private boolean remove(Hint hint) throws IOException {
        byte[] key = HintFormat.key(hint.target(), hint.entry().key());
        lock.lock();
        try {
            Entry existing = engine.get(key);
            engine.apply(Entry.tombstone(key, hint.entry().version()));
            if (existing == null
                    || existing.isTombstone()
                    || existing.version() != hint.entry().version()) {
                return false;
            }
            long bytes = EntryFormat.encodedSize(existing);
            Tally t = tallies.get(hint.target());
            t.hints--;
            if (t.hints == 0) {
                tallies.remove(hint.target());
            }
            totalBytes -= bytes;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Whether hints for the node with URL {@code target} are pending. */
    public boolean hasHints(String target) {
        lock.lock();
        try {
            return tallies.containsKey(target);
        } finally {
            lock.unlock();
        }
    }

    /** The URLs of the targets with pending hints, in string order. */
    public Set<String> targets() {
        lock.lock();
        try {
            return new TreeSet<>(tallies.keySet());
        } finally {
            lock.unlock();
        }
    }

    /** Number of pending hints, all targets. */
    public long pendingHints() {
        lock.lock();
        try {
            return tallies.values().stream().mapToLong(t -> t.hints).sum();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Bytes of the pending hints, all targets: the sum of their encoded entry sizes (25-byte entry
     * header, stored key, stored value), which approximates the disk they take once compacted.
     */
    public long totalBytes() {
        lock.lock();
        try {
            return totalBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Hints stored since open (a replacement of an older hint counts). */
    public long hintsStored() {
        return stored.get();
    }

    /** Hints removed by {@link #delivered} since open. */
    public long hintsDelivered() {
        return delivered.get();
    }

    /** Hints dropped past the age window since open. */
    public long hintsDroppedAge() {
        return droppedAge.get();
    }

    /** Hints dropped at the byte bound since open. */
    public long hintsDroppedBytes() {
        return droppedBytes.get();
    }

    /** Hints dropped since open because their key or value was too large to carry the hint fields. */
    public long hintsDroppedOversize() {
        return droppedOversize.get();
    }

    /** Closes the engine (flushes its memtable). Idempotent. */
    @Override
    public void close() throws IOException {
        engine.close();
    }
}
