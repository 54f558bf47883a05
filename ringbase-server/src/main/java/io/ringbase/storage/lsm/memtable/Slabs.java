package io.ringbase.storage.lsm.memtable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The native memory of one memtable: slabs allocated from one shared {@link Arena}, carved by a
 * lock-free bump pointer (the allocator of RocksDB's {@code Arena}, under its {@code InlineSkipList}).
 * A slab is never freed on its own; {@link #free()} releases all of them at once, when the memtable's
 * last reader is done.
 *
 * <p>Addresses are {@code long}s: the slab index in the high 32 bits, the byte offset in the slab in
 * the low 32. {@code 0} is never handed out (the first 8 bytes of slab 0 are unused), so it can stand
 * for "null".
 *
 * <p>Accounting is exact: {@link #bytes()} is the sum of the slab sizes, what the arena took from the
 * operating system. An allocation that would take the total past the limit fails ({@link #NO_ROOM}),
 * except the first one after the head node (so an entry larger than the limit still fits in an empty
 * memtable). Entries larger than a quarter of a slab get a slab of their own size.
 *
 * <p>Thread-safe: any number of threads may allocate concurrently. Writes into an allocated range are
 * the allocating thread's business; publication to readers is the skip list's.
 */
final class Slabs {

    /** Returned by {@link #allocate} when the limit is reached. */
    static final long NO_ROOM = -1;

    /** Default slab size, bytes (1 MiB): 16 slabs for the default 16 MiB memtable. */
    static final int DEFAULT_SLAB_BYTES = 1 << 20;

    /** Every allocation is rounded up to this alignment (bytes), so that 8-byte fields can be atomic. */
    static final int ALIGNMENT = 8;

    /** Slab bytes held by every memtable of this process, for the memory budget and tests. */
    private static final AtomicLong LIVE_BYTES = new AtomicLong();

    private final Arena arena = Arena.ofShared();
    /** Slab bytes of every memtable of the owner (an engine) not freed yet; added to and given back here. */
    private final AtomicLong ownerBytes;

    private final long limitBytes;
    private final int slabBytes;
    /** Slabs by index; replaced whole (copy on grow) under {@code this}, read without a lock. */
    private volatile MemorySegment[] slabs = new MemorySegment[16];

    private int slabCount; // guarded by this
    /** The slab being carved: index in the high 32 bits, next free offset in the low 32. */
    private final AtomicLong cursor = new AtomicLong();

    private final AtomicLong bytes = new AtomicLong();
    private volatile long allocations;
    private boolean freed; // guarded by this
    private long sideBytes; // guarded by this

    /**
     * @param limitBytes the most slab bytes to hold, &ge; 4096
     * @param slabBytes  size of a regular slab, bytes; at most {@code limitBytes}
     * @param ownerBytes the owner's count of slab bytes not freed yet, which these slabs add to while held
     */
    Slabs(long limitBytes, int slabBytes, AtomicLong ownerBytes) {
        if (limitBytes < 4096 || slabBytes < 1024 || slabBytes > limitBytes) {
            throw new IllegalArgumentException("limit " + limitBytes + ", slab " + slabBytes);
        }
        this.ownerBytes = ownerBytes;
        this.limitBytes = limitBytes;
        this.slabBytes = slabBytes;
        synchronized (this) {
            addSlab(slabBytes);
        }
        cursor.set(ALIGNMENT); // slab 0, offset 8: address 0 stays "null"
    }

    /**
     * The slab size for a memtable of {@code limitBytes}: {@link #DEFAULT_SLAB_BYTES}, or a quarter of the
     * limit (at least 1 KiB) if that is smaller, so a small memtable still grows slab by slab.
     */
    static int slabBytesFor(long limitBytes) {
        return (int) Math.max(1024, Math.min(DEFAULT_SLAB_BYTES, limitBytes / 4));
    }

    /** Rounds {@code size} up to {@link #ALIGNMENT}. */
    static long align(long size) {
        return (size + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * Allocates {@code size} bytes (rounded up to 8), zeroed, 8-byte aligned.
     *
     * @param countsAsEntry whether this allocation makes the memtable non-empty for the limit rule (the
     *                      head node's does not)
     * @return the address, or {@link #NO_ROOM} if a new slab would pass the limit
     * @throws IllegalStateException if the slabs were freed
     */
    long allocate(long size, boolean countsAsEntry) {
        long aligned = align(size);
        if (aligned > Integer.MAX_VALUE - ALIGNMENT) {
            throw new IllegalArgumentException("allocation of " + size + " bytes");
        }
        if (aligned <= slabBytes / 4) {
            while (true) {
                long c = cursor.get();
                long top = c & 0xFFFF_FFFFL;
                int index = (int) (c >>> 32);
                if (top + aligned <= slabs[index].byteSize()) {
                    if (cursor.compareAndSet(c, c + aligned)) {
                        counted(countsAsEntry);
                        return c;
                    }
                    continue;
                }
                synchronized (this) {
                    if (cursor.get() != c) {
                        continue; // another thread moved on to a new slab meanwhile
                    }
                    if (!roomFor(slabBytes)) {
                        return NO_ROOM;
                    }
                    int next = addSlab(slabBytes);
                    cursor.set(((long) next << 32) | aligned);
                    counted(countsAsEntry);
                    return (long) next << 32;
                }
            }
        }
        synchronized (this) { // a large entry: a slab of its own, the shared one stays current
            if (!roomFor(aligned)) {
                return NO_ROOM;
            }
            int index = addSlab(aligned);
            counted(countsAsEntry);
            return (long) index << 32;
        }
    }

    private void counted(boolean countsAsEntry) {
        if (countsAsEntry && allocations == 0) {
            allocations = 1;
        }
    }

    /** Holds this. Whether a new slab of {@code size} bytes is allowed. */
    private boolean roomFor(long size) {
        return bytes.get() + size <= limitBytes || allocations == 0;
    }

    /** Holds this. Allocates a slab and returns its index. */
    private int addSlab(long size) {
        if (freed) {
            throw new IllegalStateException("memtable slabs already freed");
        }
        MemorySegment slab = arena.allocate(size, ALIGNMENT);
        MemorySegment[] current = slabs;
        if (slabCount == current.length) {
            MemorySegment[] grown = java.util.Arrays.copyOf(current, current.length * 2);
            grown[slabCount] = slab;
            slabs = grown;
        } else {
            current[slabCount] = slab;
            slabs = current; // volatile write: publishes the new element
        }
        bytes.addAndGet(size);
        LIVE_BYTES.addAndGet(size);
        ownerBytes.addAndGet(size);
        return slabCount++;
    }

    /**
     * Zeroed native memory of {@code size} bytes (64-byte aligned) from this memtable's arena, outside
     * its limit and its {@link #bytes()}: for the memtable's key filter. Freed with the slabs; counted in
     * {@link #liveBytes()} and the owner's figure until then.
     *
     * @throws IllegalStateException if the slabs are already freed
     */
    synchronized MemorySegment allocateSide(long size) {
        if (freed) {
            throw new IllegalStateException("memtable slabs already freed");
        }
        MemorySegment segment = arena.allocate(size, 64);
        sideBytes += size;
        LIVE_BYTES.addAndGet(size);
        ownerBytes.addAndGet(size);
        return segment;
    }

    /** The slab holding {@code address}. */
    MemorySegment slab(long address) {
        return slabs[(int) (address >>> 32)];
    }

    /** The offset of {@code address} in its {@link #slab}. */
    static long offset(long address) {
        return address & 0xFFFF_FFFFL;
    }

    /** Slab bytes held, exact. */
    long bytes() {
        return bytes.get();
    }

    /** Native bytes (slabs and key filters) held by all memtables of this process that are not freed yet. */
    static long liveBytes() {
        return LIVE_BYTES.get();
    }

    /** The limit given at construction, bytes. */
    long limitBytes() {
        return limitBytes;
    }

    /** Releases every slab. Later accesses fail with {@link IllegalStateException}. Idempotent. */
    synchronized void free() {
        if (!freed) {
            freed = true;
            arena.close();
            long held = bytes.getAndSet(0) + sideBytes;
            sideBytes = 0;
            LIVE_BYTES.addAndGet(-held);
            ownerBytes.addAndGet(-held);
        }
    }

    synchronized boolean isFreed() {
        return freed;
    }
}
