package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.I64;

import io.ringbase.os.NativeFile;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The body of a format version 2, 3 or 4 SSTable ({@code docs/format.md}, sections 4.8-4.10): blocks of
 * entries (section 2.1 entries in version 2; in versions 3 and 4 compact ones, {@link CompactEntry}, but for a
 * block of one large entry),
 * each stored raw or LZ4-compressed with a CRC32C trailer, and a sparse index naming each block's last
 * key. A lookup finds its block by binary search, checks the block's checksum, and walks the block's
 * entries. The search runs first over {@link #prefixes}, 8 bytes of each block's last key as one
 * big-endian long, built at open in native memory (8 bytes per block, 2 MiB per GiB of 4 KiB blocks):
 * a dense array whose steps touch one cache line each, where the index's entries lie a key apart;
 * whole keys are compared only among blocks whose prefix equals the key's. A block stored raw is read
 * in place in the mapping; a compressed one is decompressed into the caller's {@link EntryLocation}
 * buffer. A compact entry is found and walked in place, its key rebuilt from the previous one, and the
 * entry a lookup or an iterator returns is written out in the section 2.1 encoding (one copy of it).
 *
 * <p><b>Reads of tables out of the page cache.</b> Point reads, and the first {@link #WALK_PREADS}
 * blocks of a range iterator, read their block with {@code pread(2)} instead of through the mapping
 * while the table's {@link ReadPathGauge} says the table is not in the page cache (its reads wait for
 * the device), so that each costs one block read rather than the kernel's read-around of a mapping
 * fault. Longer walks (the rest of a scan, compaction) stay on the mapping, whose read-ahead suits them.
 *
 * <p>Checks: every block's checksum, compression code and decompressed length before any of its
 * entries is used; every entry header against the block's end; index entries against the sections'
 * bounds; and that a block's entries agree with the last key its index entry names.
 */
final class BlockTable implements TableBody {

    /** Bytes after each block's payload: compression (u8), blockCrc (u32). */
    static final int TRAILER_SIZE = 5;
    /** Bytes of an index entry before its key: blockOffset u64, storedLength u32, rawLength u32, lastKeyLength u32. */
    static final int INDEX_ENTRY_HEADER = 20;
    /** Blocks a range iterator reads with {@code pread} (when its table's gauge says so) before the mapping. */
    static final int WALK_PREADS = 4;
    /**
     * Blocks {@link #prefetch} asks for: the seek's block and the next, which a short scan of values of a
     * kilobyte or more reaches (4 entries fill a 4 KiB block), in one contiguous read.
     */
    static final int PREFETCH_BLOCKS = 2;

    private final Path path;
    private final Footer footer;
    private final MemorySegment data;
    private final MemorySegment index;
    private final long blockCount;
    /** Offset in the index section of the {@code entryStart} array. */
    private final long startsAt;
    /**
     * Each block's last key's 8 bytes after {@link #commonPrefix} (zero-padded, as {@link EntryFormat#keyPrefix}
     * takes a key's first 8), in block order (in {@code arena}).
     */
    private final MemorySegment prefixes;
    /**
     * The bytes every block's last key starts with: those the first and the last block's last keys share.
     * Keys often share a prefix ({@code user:}, {@code k000000...}) that would make every block's first 8
     * bytes equal and send the search to whole keys in the mapped index, a page apart each.
     */
    private final byte[] commonPrefix;
    /** Reads the blocks: through the mapping, the block cache or {@code pread}. */
    private final BlockLoader loader;

    /**
     * @param index the index section: in the mapping, or a copy of it in native memory ({@link PinnedSections})
     * @param file  the table opened for {@code pread}, or {@code null}: reads only through the mapping;
     *              its owner closes it after the last read
     * @param arena the reader's arena: holds {@link #prefixes}, freed with the mapping
     * @throws CorruptionException if an index entry lies outside the index
     */
    BlockTable(
            Path path,
            Footer footer,
            MemorySegment mapped,
            MemorySegment index,
            NativeFile file,
            BlockCache cache,
            Arena arena)
            throws CorruptionException {
        this.path = path;
        this.footer = footer;
        this.data = mapped.asSlice(0, footer.dataLength());
        this.loader = new BlockLoader(path, data, footer.formatVersion() >= 3, file, cache);
        this.index = index;
        this.blockCount = footer.blockCount();
        this.startsAt = footer.indexLength() - 8 * blockCount;
        this.prefixes = arena.allocate(ValueLayout.JAVA_LONG, blockCount);
        this.commonPrefix = blockCount == 0 ? new byte[0] : sharedPrefix(entryAt(0), entryAt(blockCount - 1));
        int skip = commonPrefix.length;
        for (long b = 0; b < blockCount; b++) {
            long at = entryAt(b);
            prefixes.setAtIndex(
                    ValueLayout.JAVA_LONG,
                    b,
                    EntryFormat.keyPrefix(index, at + INDEX_ENTRY_HEADER + skip, index.get(I32, at + 16) - skip));
        }
    }

    @Override
    public boolean locate(byte[] key, long keyPrefix, EntryLocation into) throws IOException {
        long b = blockFor(key, keyPrefix);
        if (b == blockCount) {
            return false;
        }
        load(b, into, true, true);
        long pos = seek(b, into, key, keyPrefix);
        if (into.blockCompact) {
            CompactEntry found = into.decoder();
            if (found.compareKey(key) != 0) {
                return false;
            }
            into.set(found.expand(), 0);
            return true;
        }
        if (EntryFormat.compareKey(into.blockSegment, pos, key, keyPrefix) != 0) {
            return false;
        }
        into.set(into.blockSegment, pos);
        return true;
    }

    /**
     * In block {@code b}, which {@code loc} holds, the first entry whose key is &ge; {@code key} (the index
     * says the block's last key is): a binary search for the last restart point whose key is &le; it
     * (RocksDB's block seek), then a walk of at most a restart interval.
     *
     * @return its offset in {@code loc.blockSegment}; for a block of compact entries, {@code loc}'s
     *         {@link EntryLocation#decoder()} holds that entry decoded
     * @throws CorruptionException if every key of the block is below {@code key}, or an entry is damaged
     */
    private long seek(long b, EntryLocation loc, byte[] key, long keyPrefix) throws CorruptionException {
        MemorySegment block = loc.blockSegment;
        long end = loc.blockEnd;
        boolean compactEntries = loc.blockCompact;
        CompactEntry d = compactEntries ? loc.decoder() : null;
        int lo = 0;
        int hi = loc.restartCount - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            long at = restart(loc, mid);
            int c;
            if (compactEntries) {
                decode(d, block, at, end, true);
                c = d.compareKey(key);
            } else {
                c = EntryFormat.compareKey(block, at, key, keyPrefix);
            }
            if (c <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        boolean first = true;
        for (long pos = restart(loc, lo); pos < end; first = false) {
            if (compactEntries) {
                long next = decode(d, block, pos, end, first);
                if (d.compareKey(key) >= 0) {
                    return pos;
                }
                pos = next;
                continue;
            }
            long size = entrySize(block, pos, end);
            if (EntryFormat.compareKey(block, pos, key, keyPrefix) >= 0) {
                return pos;
            }
            pos += size;
        }
        throw new CorruptionException(
                path, blockOffset(b), "block " + b + " ends before the last key its index entry names");
    }

    @Override
    public StorageEngine.CloseableIterator<Entry> iterator(byte[] start, byte[] end, @Nullable KeyFilter keys) {
        try {
            return new RangeIterator(start, end, keys);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public SstableReader.Cursor cursor() {
        return new BlockCursor();
    }

    /**
     * Advises the kernel to read the {@link #PREFETCH_BLOCKS} blocks from the one holding {@code start} (one
     * contiguous range) when point reads of this table use {@code pread}; a damaged index is left for the
     * iterator to report.
     */
    @Override
    public void prefetch(byte[] start) {
        if (!loader.preads()) {
            return;
        }
        try {
            long b = blockFor(start, EntryFormat.keyPrefix(start));
            if (b == blockCount) {
                return;
            }
            long last = Math.min(b + PREFETCH_BLOCKS, blockCount) - 1;
            long at = entryAt(last);
            long from = blockOffset(b);
            long to = index.get(I64, at) + (index.get(I32, at + 8) & 0xFFFF_FFFFL) + TRAILER_SIZE;
            if (from < to && to <= data.byteSize()) {
                loader.willNeed(from, to - from);
            }
        } catch (CorruptionException e) {
            // the iterator reads the same index entries and reports it
        }
    }

    /** The bytes the last keys of index entries at {@code first} and {@code last} share, copied. */
    private byte[] sharedPrefix(long first, long last) {
        long a = first + INDEX_ENTRY_HEADER;
        long b = last + INDEX_ENTRY_HEADER;
        int aLen = index.get(I32, first + 16);
        int bLen = index.get(I32, last + 16);
        long mismatch = MemorySegment.mismatch(index, a, a + aLen, index, b, b + bLen);
        int shared = mismatch < 0 ? aLen : (int) mismatch;
        return EntryFormat.copyOf(index, a, shared);
    }

    /** The first block whose last key is &ge; {@code key}, or {@code blockCount} if none. */
    private long blockFor(byte[] key, long keyPrefix) throws CorruptionException {
        int skip = commonPrefix.length;
        if (skip > 0) { // every last key starts with the common prefix: a key that does not is below or above them all
            int n = Math.min(skip, key.length);
            int mismatch = java.util.Arrays.mismatch(key, 0, n, commonPrefix, 0, n);
            if (mismatch >= 0) {
                return (key[mismatch] & 0xFF) < (commonPrefix[mismatch] & 0xFF) ? 0 : blockCount;
            }
            if (key.length < skip) {
                return 0; // a proper prefix of the common prefix: below every last key
            }
        }
        long window = EntryFormat.keyPrefix(key, skip); // its 8 bytes after the common prefix
        long lo = firstPrefixAbove(window, 0, true);
        if (lo == blockCount || prefixes.getAtIndex(ValueLayout.JAVA_LONG, lo) != window) {
            return lo; // every block before lo ends below the key, lo's last key is above it
        }
        long hi = firstPrefixAbove(window, lo, false); // blocks [lo, hi) end with the key's window
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            long at = entryAt(mid);
            int c = EntryFormat.compareKeyBytes(
                    index, at + INDEX_ENTRY_HEADER, index.get(I32, at + 16), key, keyPrefix);
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * The first block from {@code from} on whose last key's prefix is above {@code keyPrefix}
     * (unsigned), or at or above it with {@code orEqual}; {@link #blockCount} if none.
     */
    private long firstPrefixAbove(long keyPrefix, long from, boolean orEqual) {
        long lo = from;
        long hi = blockCount;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(prefixes.getAtIndex(ValueLayout.JAVA_LONG, mid), keyPrefix);
            if (c < 0 || (c == 0 && !orEqual)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Offset in the index section of index entry {@code i}, its key checked to lie inside the entries. */
    private long entryAt(long i) throws CorruptionException {
        long at = index.get(I64, startsAt + 8 * i);
        if (at < 0
                || at > startsAt - INDEX_ENTRY_HEADER
                || (index.get(I32, at + 16) & 0xFFFF_FFFFL) > startsAt - INDEX_ENTRY_HEADER - at) {
            throw new CorruptionException(
                    path,
                    footer.indexOffset() + startsAt + 8 * i,
                    "index entry " + i + " lies outside the index: " + at);
        }
        return at;
    }

    private long blockOffset(long b) throws CorruptionException {
        return index.get(I64, entryAt(b));
    }

    /** How this table's point reads reach its blocks now; {@code null} if only through the mapping. For tests. */
    ReadPathGauge gauge() {
        return loader.gauge();
    }

    /**
     * Reads block {@code b} and points {@code loc}'s block fields at its raw entries ({@link BlockLoader#load}),
     * once its index entry is checked.
     *
     * @param pointRead whether this is a point read (see {@link BlockLoader#load})
     * @param mayPread  whether to read the block with {@code pread} if the gauge says so
     * @throws CorruptionException if its index entry, checksum, compression code or length is wrong
     * @throws IOException         if {@code pread} failed (EIO...)
     */
    private void load(long b, EntryLocation loc, boolean pointRead, boolean mayPread) throws IOException {
        long at = entryAt(b);
        long offset = index.get(I64, at);
        long stored = index.get(I32, at + 8) & 0xFFFF_FFFFL;
        int raw = index.get(I32, at + 12);
        if (offset < 0 || raw < CompactEntry.MIN_SIZE || stored > data.byteSize() - TRAILER_SIZE - offset) {
            throw new CorruptionException(
                    path,
                    footer.indexOffset() + at,
                    "index entry " + b
                            + " names a block outside the data section: offset " + offset + ", " + stored
                            + " bytes stored, "
                            + raw + " raw");
        }
        loader.load(b, loc, pointRead, mayPread, offset, stored, raw);
    }

    /**
     * Offset of restart point {@code i} of the block {@code loc} holds, checked to lie in its entries (and,
     * for section 2.1 entries, the entry's header to fit: a compare reads it in place).
     */
    private long restart(EntryLocation loc, int i) throws CorruptionException {
        MemorySegment block = loc.blockSegment;
        long end = loc.blockEnd;
        long at = loc.blockStart + (block.get(I32, end + 4L * i) & 0xFFFF_FFFFL);
        if (at > end - BlockLoader.minEntrySize(loc.blockCompact)) {
            throw new CorruptionException(
                    path,
                    block == data ? end + 4L * i : -1,
                    "restart point " + i + " lies outside its block's entries");
        }
        if (!loc.blockCompact) {
            entrySize(block, at, end);
        }
        return at;
    }

    /** {@link CompactEntry#decode}, its complaint turned into a {@link CorruptionException} naming the table. */
    private long decode(CompactEntry d, MemorySegment block, long pos, long end, boolean restart)
            throws CorruptionException {
        try {
            return d.decode(block, pos, end, restart);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(
                    path, block == data ? pos : -1, "invalid entry in a block: " + e.getMessage(), e);
        }
    }

    /** Size of the entry at {@code pos}, whose header is checked to fit before {@code end}. */
    private long entrySize(MemorySegment block, long pos, long end) throws CorruptionException {
        try {
            return EntryFormat.checkedSize(block, pos, end);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(
                    path, block == data ? pos : -1, "invalid entry in a block: " + e.getMessage(), e);
        }
    }

    /**
     * Entries in table order from a starting block, one block in memory at a time; each in the section
     * 2.1 encoding at {@link #entryOffset} of {@link #entrySegment} (in place, or written out from a
     * compact entry). One thread.
     */
    private class Walk {
        final EntryLocation loc = new EntryLocation();
        long block;
        MemorySegment segment;
        long pos;
        long end;
        /** Whether {@link #pos} is its block's first entry, whose key shares nothing. */
        boolean blockStart;

        MemorySegment entrySegment;
        long entryOffset;
        /** End of the current entry's encoding in {@link #entrySegment}. */
        long entryEnd;

        /** Blocks still to read with {@code pread} if the gauge says so; then through the mapping. */
        int preads;

        /** A walk from {@code firstBlock} whose first {@code preads} blocks may be read with pread(2). */
        Walk(long firstBlock, int preads) {
            this.block = firstBlock - 1;
            this.preads = preads;
        }

        /** Loads the next block and stands at its first entry; false past the last block. */
        boolean nextBlock() throws IOException {
            if (++block >= blockCount) {
                segment = null;
                return false;
            }
            load(block, loc, false, preads-- > 0);
            segment = loc.blockSegment;
            pos = loc.blockStart;
            end = loc.blockEnd;
            blockStart = true;
            return true;
        }

        /** Moves to the next entry; false past the last block. */
        boolean advance() throws IOException {
            while (segment == null || pos >= end) {
                if (!nextBlock()) {
                    return false;
                }
            }
            long at = pos;
            if (loc.blockCompact) {
                CompactEntry d = loc.decoder();
                pos = decode(d, segment, at, end, blockStart);
                entrySegment = d.expand();
                entryOffset = 0;
                entryEnd = d.expandedSize();
            } else {
                pos += entrySize(segment, at, end);
                entrySegment = segment;
                entryOffset = at;
                entryEnd = pos;
            }
            blockStart = false;
            return true;
        }
    }

    /** See {@link SstableReader#cursor()}. */
    private final class BlockCursor extends Walk implements SstableReader.Cursor {
        BlockCursor() {
            super(0, 0); // a pass over the whole table: the mapping's read-ahead suits it
        }

        @Override
        public boolean next() throws IOException {
            return advance();
        }

        @Override
        public MemorySegment segment() {
            return entrySegment;
        }

        @Override
        public long offset() {
            return entryOffset;
        }
    }

    /** Entries [start, end) decoded one at a time. One thread at a time. */
    private final class RangeIterator extends EntryIterator {
        private final Walk walk;
        private final byte[] endKey;
        private final long endPrefix;
        private final @Nullable KeyFilter keys;
        private boolean exhausted;

        RangeIterator(byte[] start, byte[] end, @Nullable KeyFilter keys) throws IOException {
            this.keys = keys;
            long startPrefix = start == null ? 0 : EntryFormat.keyPrefix(start);
            this.walk = new Walk(start == null ? 0 : blockFor(start, startPrefix), WALK_PREADS);
            this.endKey = end;
            this.endPrefix = end == null ? 0 : EntryFormat.keyPrefix(end);
            if (start != null) { // position in the first block at its first key >= start
                if (!walk.nextBlock()) {
                    exhausted = true;
                } else {
                    walk.pos = seek(walk.block, walk.loc, start, startPrefix); // not consumed
                    walk.blockStart = false; // a compact entry there is decoded again on the key seek rebuilt
                }
            }
        }

        @Override
        Entry fetch() throws IOException {
            while (true) {
                if (exhausted
                        || !walk.advance()
                        || (endKey != null
                                && EntryFormat.compareKey(walk.entrySegment, walk.entryOffset, endKey, endPrefix)
                                        >= 0)) {
                    return null;
                }
                if (keys == null
                        || keys.keep(EntryFormat.copyOf(
                                walk.entrySegment,
                                EntryFormat.keyOffset(walk.entryOffset),
                                EntryFormat.keyLength(walk.entrySegment, walk.entryOffset)))) {
                    return EntryFormat.read(walk.entrySegment, walk.entryOffset, walk.entryEnd);
                }
            }
        }
    }
}
