package io.ringbase.storage;

import io.ringbase.storage.sstable.EntryLocation;
import java.lang.foreign.MemorySegment;

/**
 * A reusable handle on the newest stored entry of one key, for answering a read without decoding the
 * entry or copying its value more than once. {@link StorageEngine#read} fills it; it then points at the
 * entry's {@link EntryFormat} encoding where it lies (a memtable slab, a mapped SSTable, or this cursor's
 * own buffer holding a decompressed SSTable block) and keeps that memory pinned until {@link #close()}.
 * Read the value with {@link #segment()} and {@link #valueOffset()}/{@link #valueLength()}, copy it where
 * it must go, then close.
 *
 * <p>Meant to be kept per thread (an event loop, a worker) and reused for every read: it allocates
 * nothing once its two block buffers have grown to the largest block read (a block cache frame at
 * most, 12 KiB once rounded up). Not thread-safe.
 */
public final class ReadCursor implements AutoCloseable {

    private View pinned;
    private MemorySegment segment;
    private long offset;
    /** Block buffers of SSTable lookups: the one holding the newest entry so far, and the next probe's. */
    private EntryLocation kept;
    private EntryLocation probe;

    /** Called by the engine: where the next SSTable lookup of this read goes. */
    EntryLocation probe() {
        if (probe == null) {
            probe = new EntryLocation();
            kept = new EntryLocation();
        }
        return probe;
    }

    /** Called by the engine: the last probe found the newest entry so far; the next one uses the other buffer. */
    void keepProbe() {
        EntryLocation t = kept;
        kept = probe;
        probe = t;
    }

    /** Called by the engine: {@code view} stays retained until {@link #close()}. */
    void pin(View view) {
        close();
        pinned = view;
    }

    /** Called by the engine: the entry found is encoded at {@code offset} of {@code segment}. */
    void set(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
    }

    /** Called by engines that answer with a decoded entry: holds a copy of its encoding. */
    void setCopy(Entry entry) {
        close();
        if (entry != null) {
            set(MemorySegment.ofArray(EntryFormat.toBytes(entry)), 0);
        }
    }

    /** Whether the key has an entry (a value, a tombstone, or an expired value). */
    public boolean found() {
        return segment != null;
    }

    /** Whether the entry found is live at {@code nowMs} (Unix epoch ms): a value not expired. */
    public boolean isLive(long nowMs) {
        if (segment == null || EntryFormat.isTombstone(segment, offset)) {
            return false;
        }
        long expires = EntryFormat.expiresAtMs(segment, offset);
        return expires == Entry.NO_EXPIRY || expires > nowMs;
    }

    /** The version of the entry found. */
    public long version() {
        return EntryFormat.version(requireFound(), offset);
    }

    /** The memory holding the entry found; valid until {@link #close()}. */
    public MemorySegment segment() {
        return requireFound();
    }

    /** Offset in {@link #segment()} of the value bytes. */
    public long valueOffset() {
        return EntryFormat.valueOffset(requireFound(), offset);
    }

    /** Length of the value in bytes (0 for a tombstone). */
    public int valueLength() {
        return EntryFormat.valueLength(requireFound(), offset);
    }

    /** The entry found, decoded into a new {@link Entry} (copies), or {@code null} if none. */
    public Entry toEntry() {
        if (segment == null) {
            return null;
        }
        return EntryFormat.read(segment, offset, offset + EntryFormat.size(segment, offset));
    }

    /** Unpins what the last read pinned and forgets the entry. Idempotent. */
    @Override
    public void close() {
        segment = null;
        View v = pinned;
        if (v != null) {
            pinned = null;
            v.release();
        }
    }

    private MemorySegment requireFound() {
        if (segment == null) {
            throw new IllegalStateException("no entry found");
        }
        return segment;
    }
}
