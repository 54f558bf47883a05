package io.ringbase.storage;

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
 * nothing once the engine's buffers {@linkplain #attach attached} to it have grown to the largest block
 * read (for the LSM engine, two block buffers of a block cache frame at most, 12 KiB once rounded up).
 * The methods marked "engine side" are for engines; callers use the others. Not thread-safe.
 */
public final class ReadCursor implements AutoCloseable {

    /**
     * What an engine keeps pinned while a cursor points into its memory (a snapshot of its sources, say),
     * given back by {@link ReadCursor#close()}.
     */
    @FunctionalInterface
    public interface Pin {
        /** Gives the pin back; called once per {@link ReadCursor#pin}. */
        void release();
    }

    private Pin pinned;
    private MemorySegment segment;
    private long offset;
    /** The engine's own state kept with this cursor between reads (its block buffers); see {@link #attachment()}. */
    private Object attachment;

    /**
     * Engine side: the state the engine {@linkplain #attach attached} to this cursor, or {@code null}.
     * An engine keeps its reusable read buffers here, so that a read allocates nothing once they have
     * grown; it checks the type, since a cursor may serve more than one engine.
     */
    public Object attachment() {
        return attachment;
    }

    /** Engine side: keeps {@code state} with this cursor for later reads (it replaces any other). */
    public void attach(Object state) {
        attachment = state;
    }

    /** Engine side: {@code pin} stays held until {@link #close()}; what the cursor held before is released first. */
    public void pin(Pin pin) {
        close();
        pinned = pin;
    }

    /** Engine side: the entry found is encoded ({@link EntryFormat}) at {@code offset} of {@code segment}. */
    public void set(MemorySegment segment, long offset) {
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

    /** Offset in {@link #segment()} of the stored value bytes (a typed entry's start with its content type). */
    public long valueOffset() {
        return EntryFormat.valueOffset(requireFound(), offset);
    }

    /** Length of the value in bytes (0 for a tombstone). */
    public int valueLength() {
        return EntryFormat.valueLength(requireFound(), offset);
    }

    /** Whether the entry found is typed: its stored value starts with a {@link ContentType} prefix. */
    public boolean typed() {
        return EntryFormat.isTyped(requireFound(), offset);
    }

    /**
     * Offset in {@link #segment()} of the bare value: past the {@link ContentType} prefix of a typed entry,
     * else {@link #valueOffset()}. What a client is served.
     */
    public long bareValueOffset() {
        MemorySegment s = requireFound();
        long v = EntryFormat.valueOffset(s, offset);
        return EntryFormat.isTyped(s, offset) ? ContentType.bareOffset(s, v) : v;
    }

    /** Length of the bare value ({@link #bareValueOffset()}) in bytes. */
    public int bareValueLength() {
        MemorySegment s = requireFound();
        int length = EntryFormat.valueLength(s, offset);
        if (!EntryFormat.isTyped(s, offset)) {
            return length;
        }
        long v = EntryFormat.valueOffset(s, offset);
        return (int) (length - (ContentType.bareOffset(s, v) - v));
    }

    /** The content type stored with the entry found, or {@code null} if it is untyped. */
    public String contentType() {
        MemorySegment s = requireFound();
        return EntryFormat.isTyped(s, offset) ? ContentType.typeOf(s, EntryFormat.valueOffset(s, offset)) : null;
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
        Pin p = pinned;
        if (p != null) {
            pinned = null;
            p.release();
        }
    }

    private MemorySegment requireFound() {
        if (segment == null) {
            throw new IllegalStateException("no entry found");
        }
        return segment;
    }
}
