package io.ringbase.storage.lsm.sstable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;

/**
 * A cache of decompressed SSTable blocks in native memory of a fixed size, shared by every table of an
 * engine, so that a hot block is decompressed once rather than on every point read (the role of
 * RocksDB's block cache). Point reads go through it; scans and compactions read around it, so that one
 * pass over a table does not push the hot blocks out.
 *
 * <p><b>Layout.</b> {@code capacityBytes / FRAME_BYTES} frames of {@link #FRAME_BYTES} each (a block of
 * the default 4 KiB size decompresses to less than 8.5 KiB), grouped in sets of {@link #WAYS}; a block
 * (table id, block number) can live only in the set its hash names, and a new one replaces the first
 * frame of the set not read since the hand last passed it (the CLOCK second-chance rule, per set).
 * Blocks larger than a frame are not cached.
 *
 * <p><b>Concurrency.</b> Lock-free for readers: a lookup copies the frame out under a
 * {@link StampedLock} optimistic read and keeps the copy only if no writer took the frame meanwhile
 * (the validation pattern of the {@code StampedLock} documentation); a writer that finds the frame busy
 * skips caching. The memory is never freed while the cache is reachable (it belongs to an automatic
 * arena), so a racing copy can read stale bytes, which validation discards, but never freed memory.
 * Memory is allocated, and zeroed, at the first {@link #put}.
 */
public final class BlockCache {

    /** A cache that holds nothing: every lookup misses, every put is dropped. */
    public static final BlockCache NONE = new BlockCache(0);
    /** Size of a frame, bytes: twice the default block size, and room for its restart array. */
    static final int FRAME_BYTES = 2 * SstableWriter.DEFAULT_BLOCK_BYTES + 512;
    /** Frames per set. */
    static final int WAYS = 8;

    private static final AtomicLong TABLE_IDS = new AtomicLong();

    private final int sets;
    private final int frames;
    private volatile MemorySegment memory;
    private final StampedLock[] locks;
    private final long[] tables;
    private final long[] blocks;
    private final int[] lengths;
    private final boolean[] referenced;
    private final int[] hands;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    /**
     * @param capacityBytes native memory to use, bytes: rounded down to whole sets of {@link #WAYS}
     *                      frames of {@link #FRAME_BYTES}; less than one set (64 KiB) means no cache
     * @throws IllegalArgumentException if {@code capacityBytes} is negative or above 64 GiB
     */
    public BlockCache(long capacityBytes) {
        if (capacityBytes < 0 || capacityBytes > (64L << 30)) {
            throw new IllegalArgumentException("block cache of " + capacityBytes + " bytes, not in 0 .. 64 GiB");
        }
        this.sets = (int) (capacityBytes / ((long) FRAME_BYTES * WAYS));
        this.frames = sets * WAYS;
        this.locks = new StampedLock[frames];
        for (int i = 0; i < frames; i++) {
            locks[i] = new StampedLock();
        }
        this.tables = new long[frames];
        this.blocks = new long[frames];
        this.lengths = new int[frames];
        this.referenced = new boolean[frames];
        this.hands = new int[sets];
    }

    /** A new id for a table's blocks: ids are never reused, so a deleted table's blocks just age out. */
    static long newTableId() {
        return TABLE_IDS.incrementAndGet();
    }

    /** The native memory this cache holds (or will hold once used), bytes. */
    public long capacityBytes() {
        return (long) frames * FRAME_BYTES;
    }

    /** Lookups that found their block. */
    public long hits() {
        return hits.sum();
    }

    /** Lookups that did not. */
    public long misses() {
        return misses.sum();
    }

    /**
     * Copies block {@code block} of table {@code table} into {@code dst}, if cached.
     *
     * @param dst at least {@link #FRAME_BYTES} long
     * @return the block's length in bytes, or -1 if it is not cached
     */
    int get(long table, long block, MemorySegment dst) {
        MemorySegment m = memory;
        if (m == null) {
            if (frames > 0) {
                misses.increment();
            }
            return -1;
        }
        int first = set(table, block) * WAYS;
        for (int f = first; f < first + WAYS; f++) {
            StampedLock lock = locks[f];
            long stamp = lock.tryOptimisticRead();
            if (stamp == 0 || tables[f] != table || blocks[f] != block) {
                continue;
            }
            int length = lengths[f];
            if (length <= 0 || length > FRAME_BYTES) {
                continue; // a torn read of a frame being written; validation would fail too
            }
            MemorySegment.copy(m, (long) f * FRAME_BYTES, dst, 0, length);
            if (lock.validate(stamp)) {
                referenced[f] = true;
                hits.increment();
                return length;
            }
        }
        misses.increment();
        return -1;
    }

    /** Caches {@code src[0, length)} as block {@code block} of table {@code table}, unless it is too large or its frame is busy. */
    void put(long table, long block, MemorySegment src, int length) {
        if (frames == 0 || length > FRAME_BYTES) {
            return;
        }
        MemorySegment m = memory();
        int set = set(table, block);
        int f = victim(set);
        StampedLock lock = locks[f];
        long stamp = lock.tryWriteLock();
        if (stamp == 0) {
            return;
        }
        try {
            tables[f] = table;
            blocks[f] = block;
            lengths[f] = length;
            referenced[f] = false;
            MemorySegment.copy(src, 0, m, (long) f * FRAME_BYTES, length);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** The frame of {@code set} to replace: the first the hand finds not referenced, clearing bits as it passes. */
    private int victim(int set) {
        int first = set * WAYS;
        int hand = hands[set]; // racy: two writers may pick the same frame, and one then skips
        for (int step = 0; step < 2 * WAYS; step++) {
            int f = first + (hand + step) % WAYS;
            if (!referenced[f]) {
                hands[set] = (hand + step + 1) % WAYS;
                return f;
            }
            referenced[f] = false;
        }
        return first + hand % WAYS;
    }

    private MemorySegment memory() {
        MemorySegment m = memory;
        if (m == null) {
            synchronized (this) {
                m = memory;
                if (m == null) {
                    m = Arena.ofAuto().allocate((long) frames * FRAME_BYTES, 64);
                    memory = m;
                }
            }
        }
        return m;
    }

    private int set(long table, long block) {
        long h = (table * 0x9E3779B97F4A7C15L) ^ (block * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 29;
        return (int) Math.floorMod(h, (long) sets);
    }
}
