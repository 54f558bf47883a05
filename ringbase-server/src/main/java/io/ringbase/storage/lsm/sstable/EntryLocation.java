package io.ringbase.storage.lsm.sstable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Where an SSTable lookup ({@link SstableReader#locate}) found an entry: its {@code docs/format.md}
 * section 2.1 encoding at {@link #offset()} of {@link #segment()}. The segment is the table's mapping
 * (format version 1, a version 2 block stored raw, a version 3 block of one large entry), this
 * location's own buffer, into which a version 2 block was decompressed, or the buffer into which a
 * version 3 compact entry was written out; each stays valid while the caller holds a reference on the
 * table and until this location is used for the next lookup.
 *
 * <p>Reusable and allocation-free once its buffers have grown to the largest block and entry read (a block cache
 * frame at most, 12 KiB once rounded up). Not thread-safe: one per reading thread.
 */
public final class EntryLocation {

    private MemorySegment segment;
    private long offset = -1;
    /**
     * Native, like the memtables and tables the same engine code reads ({@link SstableWriter}'s buffers say
     * why); freed by the collector with this location, or when it grows.
     */
    private MemorySegment buffer = MemorySegment.NULL;
    /** A view of {@link #buffer} for the LZ4 codec, made when the buffer grows ({@code null} before). */
    private ByteBuffer bufferView;

    /** The block last loaded into or through this location ({@link BlockTable}): its raw entries. */
    MemorySegment blockSegment;

    long blockStart;
    /** End of the block's entries, where its restart array begins. */
    long blockEnd;

    int restartCount;
    /** Whether that block holds compact entries ({@link CompactEntry}), which {@link #decoder()} reads. */
    boolean blockCompact;

    private CompactEntry decoder;

    /** The decoder of this location's compact entries, created on first use. */
    CompactEntry decoder() {
        CompactEntry d = decoder;
        if (d == null) {
            d = new CompactEntry();
            decoder = d;
        }
        return d;
    }

    /** The memory holding the entry found by the last successful lookup. */
    public MemorySegment segment() {
        return segment;
    }

    /** Offset in {@link #segment()} of the entry's encoding. */
    public long offset() {
        return offset;
    }

    void set(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
    }

    /** This location's buffer, grown to at least {@code bytes}; its old content is not kept. */
    MemorySegment buffer(int bytes) {
        if (buffer.byteSize() < bytes) {
            buffer = Arena.ofAuto().allocate(roundUp(bytes), 8);
            bufferView = buffer.asByteBuffer();
        }
        return buffer;
    }

    /** {@code bytes} rounded up to a multiple of 4 KiB: a few growths, and never past the largest block. */
    private static int roundUp(int bytes) {
        return (bytes + 4095) & -4096;
    }

    /** The whole of {@link #buffer(int)}'s buffer, as last grown. */
    MemorySegment bufferSegment() {
        return buffer;
    }

    /**
     * A {@code ByteBuffer} view of {@link #bufferSegment()}, for the LZ4 codec (which ignores its position
     * and limit); call {@link #buffer(int)} first.
     */
    ByteBuffer bufferView() {
        return bufferView;
    }
}
