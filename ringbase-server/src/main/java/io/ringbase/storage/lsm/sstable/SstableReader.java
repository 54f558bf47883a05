package io.ringbase.storage.lsm.sstable;

import io.ringbase.hash.XxHash64;
import io.ringbase.os.NativeFile;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.lsm.lifetime.RefCount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one SSTable ({@code docs/format.md}, section 4) through a read-only memory mapping, in either
 * format version: versions 4, 3 and 2 (blocks and a sparse index, sections 4.10, 4.9 and 4.8; {@link BlockTable}),
 * the engine writing version 4, or version 1 (records and an exact index; {@link V1Table}), which it still reads. Point
 * lookups probe the Bloom filter first; range iteration is lazy.
 *
 * <p>Checks: {@link #open} verifies magic, format version, footer, index and Bloom checksums and the
 * section layout, reading the index whole, so opening takes time in proportion to the index (one entry
 * per block in versions 2 to 4), not to the entries; what a read uses is checked as it is read (blocks: the
 * block's checksum; version 1: the entry's). Damage shows as {@link CorruptionException} (from
 * iterators wrapped in an {@link UncheckedIOException}).
 *
 * <p>Thread-safe: a reader is immutable after {@code open}; any number of threads may call {@code get},
 * {@code locate} and {@code iterator} concurrently (each iterator, cursor and {@link EntryLocation} is
 * for one thread).
 *
 * <p><b>Lifetime.</b> The mapping belongs to the reader's own shared {@link Arena}, unmapped (and the
 * descriptor point reads {@code pread} with, see {@link BlockTable}, closed) when the reader's reference
 * count reaches zero, so a deleted table's disk space comes back as soon as its
 * last reader is done rather than at some later garbage collection. {@link #open} returns a reader
 * holding one reference (the opener's, given back by {@link #close()}); whoever reads it later takes one
 * with {@link #tryRetain()} and gives it back with {@link #release()}: in the engine, every view holds
 * one on each of its tables, and every read and scan holds its view (the scheme of RocksDB's
 * reference-counted {@code Version}s and of Cassandra's {@code SSTableReader} {@code Ref}s). Reading a
 * reader whose count reached zero throws {@link IllegalStateException} (the arena is closed), never
 * reads unmapped memory.
 */
public final class SstableReader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SstableReader.class);

    private final Path path;
    private final Footer footer;
    /** The whole file, mapped. */
    private final MemorySegment mapping;

    private final TableBody body;
    private final BloomFilter bloom;
    /** Owns the mapping: closed when {@link #refs} reaches zero. */
    private final Arena arena;
    /** The file opened for {@code pread} ({@link BlockTable}), or {@code null}; closed with the arena. */
    private final NativeFile file;
    /** The budget {@link #pinnedBytes} were taken from, given back with the arena. */
    private final PinnedSections pinned;
    /** Bytes of the index and Bloom filter copied into the arena; 0 if they are read in the mapping. */
    private final long pinnedBytes;

    private final RefCount refs = new RefCount();

    private SstableReader(
            Path path,
            Footer footer,
            MemorySegment mapping,
            TableBody body,
            BloomFilter bloom,
            Arena arena,
            NativeFile file,
            PinnedSections pinned,
            long pinnedBytes) {
        this.pinned = pinned;
        this.pinnedBytes = pinnedBytes;
        this.arena = arena;
        this.file = file;
        this.path = path;
        this.footer = footer;
        this.mapping = mapping;
        this.body = body;
        this.bloom = bloom;
    }

    /**
     * Maps {@code file} read-only and checks its footer, index and Bloom filter (reading them fully, not
     * the data section).
     *
     * @throws CorruptionException if the file is shorter than a footer, its magic or format version is
     *                             wrong, a footer/index/Bloom checksum mismatches, or the sections do not
     *                             tile the file
     * @throws IOException         if the file cannot be opened or mapped
     */
    public static SstableReader open(Path file) throws IOException {
        return open(file, BlockCache.NONE);
    }

    /**
     * {@link #open(Path)}, with point reads of compressed blocks going through {@code cache}.
     *
     * @throws CorruptionException as {@link #open(Path)}
     * @throws IOException         if the file cannot be opened or mapped
     */
    public static SstableReader open(Path file, BlockCache cache) throws IOException {
        return open(file, cache, PinnedSections.NONE);
    }

    /**
     * {@link #open(Path, BlockCache)}, with the table's index and Bloom filter sections copied into native
     * memory of {@code pinned}'s budget if they fit in what is left of it (format versions 2 to 5), so that
     * lookups read neither from the page cache; the copy is freed, and the budget given back, with the
     * mapping.
     *
     * @throws CorruptionException as {@link #open(Path)}
     * @throws IOException         if the file cannot be opened or mapped
     */
    public static SstableReader open(Path file, BlockCache cache, PinnedSections pinned) throws IOException {
        Arena arena = Arena.ofShared();
        long[] reserved = {0};
        try {
            return open(file, arena, cache, pinned, reserved);
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            pinned.release(reserved[0]);
            throw e;
        }
    }

    /** @param reserved holds, at [0], the bytes taken of {@code pinned}, for the caller to give back on failure */
    private static SstableReader open(Path file, Arena arena, BlockCache cache, PinnedSections pinned, long[] reserved)
            throws IOException {
        MemorySegment mapped;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < Footer.TAIL_SIZE) {
                throw new CorruptionException(file, 0, "file of " + size + " bytes is shorter than an SSTable footer");
            }
            // the same memory and lifetime, as a plain native segment: the engine's MemorySegment code then
            // meets one segment class, memtable slabs, scratch buffers and tables alike, where a mapped
            // segment class made C2 throw compiled code away (class-check traps) at a node's first
            // compaction (SstableWriter's buffers say more)
            MemorySegment mapping = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            mapped = MemorySegment.ofAddress(mapping.address())
                    .reinterpret(size, arena, null)
                    .asReadOnly();
        }
        Footer footer = Footer.read(file, mapped);
        MemorySegment index = mapped.asSlice(footer.indexOffset(), footer.indexLength());
        MemorySegment bloomSection = mapped.asSlice(footer.bloomOffset(), footer.bloomLength());
        long indexSpan = (footer.indexLength() + 7) & ~7L; // the filter's longs 8-byte aligned in the copy
        long pinnedBytes = indexSpan + footer.bloomLength();
        if (footer.formatVersion() >= 2 && pinned.tryReserve(pinnedBytes, file)) {
            reserved[0] = pinnedBytes;
            // copied before the checksums, which then cover what lookups will read
            MemorySegment copy = arena.allocate(pinnedBytes, 8);
            MemorySegment.copy(index, 0, copy, 0, index.byteSize());
            MemorySegment.copy(bloomSection, 0, copy, indexSpan, bloomSection.byteSize());
            index = copy.asSlice(0, index.byteSize()).asReadOnly();
            bloomSection = copy.asSlice(indexSpan, bloomSection.byteSize()).asReadOnly();
        }
        if (Crc32c.of(index) != footer.indexCrc()) {
            throw new CorruptionException(file, footer.indexOffset(), "index checksum mismatch");
        }
        if (Crc32c.of(bloomSection) != footer.bloomCrc()) {
            throw new CorruptionException(file, footer.bloomOffset(), "Bloom filter checksum mismatch");
        }
        BloomFilter bloom = BloomFilter.read(
                file, bloomSection, footer.bloomOffset(), BloomFilter.Layout.of(footer.formatVersion()));
        if (footer.formatVersion() == 1) {
            return new SstableReader(
                    file, footer, mapped, new V1Table(file, footer, mapped), bloom, arena, null, pinned, 0);
        }
        NativeFile direct = openForPread(file);
        try {
            BlockTable body = new BlockTable(file, footer, mapped, index, direct, cache, arena);
            return new SstableReader(file, footer, mapped, body, bloom, arena, direct, pinned, reserved[0]);
        } catch (IOException | RuntimeException | Error e) {
            if (direct != null) {
                direct.close();
            }
            throw e;
        }
    }

    /**
     * Loads, before an engine takes writes, what opening its first table would otherwise load in the middle
     * of them: the JDK's mapped-segment class (by mapping 0 bytes of {@code anyFile}), the LZ4 codec and its
     * native library, and the {@code pread} downcalls ({@link NativeFile}); and the heap segment classes.
     * The segment classes are the reason: C2 compiles the engine's segment code for the one native segment
     * class it has seen and, by class hierarchy analysis, without a type check; loading another segment
     * class then throws all that code away at once (about 110 methods at a fresh node's first flush).
     *
     * @param anyFile a readable file (the engine's WAL segment); only opened and closed
     * @throws IOException if {@code anyFile} cannot be opened
     */
    public static void loadClasses(Path anyFile) throws IOException {
        // a confined arena: the segment's class is the same, and closing a shared one waits for a handshake
        // with every thread of the JVM (10-50 ms at a busy start)
        try (Arena arena = Arena.ofConfined();
                FileChannel ch = FileChannel.open(anyFile, StandardOpenOption.READ)) {
            ch.map(FileChannel.MapMode.READ_ONLY, 0, 0, arena);
        }
        BlockCompression.maxCompressedLength(0);
        NativeFile.open(anyFile).ifPresent(NativeFile::close);
        // the heap segment classes too: the engine sees none in a single node, but in a cluster a replica's
        // write hands it one (LocalReplica: an Entry's byte[] value)
        MemorySegment.ofArray(new byte[1]).fill((byte) 0);
    }

    /**
     * {@code file} opened for {@code pread}, or {@code null} where that is unavailable or failed (then every
     * read goes through the mapping, as it does while the table is in the page cache; a WARN line says why).
     */
    private static NativeFile openForPread(Path file) {
        try {
            return NativeFile.open(file).orElse(null);
        } catch (IOException e) {
            log.warn(
                    "point reads of {} will go through its mapping only, also when it is not in the page cache: {}",
                    file,
                    e.getMessage());
            return null;
        }
    }

    /**
     * The entry stored for {@code key} (a value or a tombstone, expired or not), decoded into a new
     * {@link Entry}, or {@code null}. As {@link #locate}, with a location of its own.
     *
     * @throws CorruptionException if what the lookup read is damaged
     */
    public Entry get(byte[] key) throws IOException {
        EntryLocation at = new EntryLocation();
        if (!locate(key, EntryFormat.keyPrefix(key), at)) {
            return null;
        }
        return EntryFormat.read(at.segment(), at.offset(), at.segment().byteSize());
    }

    /**
     * Finds the entry of {@code key} without decoding it and points {@code into} at its encoding. A key
     * the Bloom filter rules out reads no data page; otherwise at most one block (versions 2 to 4) is read,
     * its checksum verified, or (version 1) the entry found, or the two around the key's position, are
     * verified, so that a damaged key cannot turn a hit into a silent miss.
     *
     * @param key       the key
     * @param keyPrefix its {@link EntryFormat#keyPrefix} (callers that search several tables compute it once)
     * @param into      where the entry is, if found; valid while the caller holds a reference on this
     *                  table and until {@code into} is used again
     * @return whether the table has an entry (a value or a tombstone, expired or not) for the key
     * @throws CorruptionException if what the lookup read is damaged
     */
    public boolean locate(byte[] key, long keyPrefix, EntryLocation into) throws IOException {
        return locate(key, keyPrefix, XxHash64.hash(key), into);
    }

    /**
     * As {@link #locate(byte[], long, EntryLocation)}, for a caller that has already hashed the key for
     * the Bloom filter: {@code keyHash} is {@link XxHash64#hash(byte[])} of {@code key}, so one read
     * hashes its key once for all tables.
     */
    public boolean locate(byte[] key, long keyPrefix, long keyHash, EntryLocation into) throws IOException {
        return bloom.mightContainHash(keyHash) && body.locate(key, keyPrefix, into);
    }

    /**
     * {@link #mightContain}, for a key whose {@link XxHash64#hash(byte[])} is {@code keyHash}.
     */
    public boolean mightContainHash(long keyHash) {
        return bloom.mightContainHash(keyHash);
    }

    /** False if {@code key} is certainly not in this table; true if it may be (about 1% false positives). */
    public boolean mightContain(byte[] key) {
        return bloom.mightContain(key);
    }

    /**
     * Starts reading, without waiting, the blocks an iterator from {@code start} would read first, when this
     * table's reads go to the device ({@link #readsWithPread()}); otherwise does nothing. A scan over several
     * tables calls it on each before it opens their iterators, so that their first reads overlap on the
     * device instead of following one another.
     *
     * @param start inclusive lower bound of the iterator to come
     */
    public void prefetch(byte[] start) {
        body.prefetch(start);
    }

    /**
     * Entries with {@code start <= key < end} in key order, decoded one at a time as the iterator
     * advances. What an entry is read from is verified before the entry is returned (its block's
     * checksum; in version 1 its own, and also those of the first entry at or past {@code end}, where
     * iteration stops, and of the entry before {@code start}); a mismatch is thrown from
     * {@code hasNext()}/{@code next()} as an {@link UncheckedIOException} wrapping a
     * {@link CorruptionException}.
     *
     * @param start inclusive lower bound, or {@code null} for "from the first key"
     * @param end   exclusive upper bound, or {@code null} for "to the last key"
     */
    public StorageEngine.CloseableIterator<Entry> iterator(byte[] start, byte[] end) {
        return body.iterator(start, end, null);
    }

    /**
     * {@link #iterator(byte[], byte[])} of the keys {@code keys} keeps ({@code null}: all): a rejected key's
     * entry is skipped with only its key copied, its value neither decoded nor copied.
     */
    public StorageEngine.CloseableIterator<Entry> iterator(byte[] start, byte[] end, @Nullable KeyFilter keys) {
        return body.iterator(start, end, keys);
    }

    /** The table's format version: 1 to 5 ({@code docs/format.md}, section 6). */
    public int formatVersion() {
        return footer.formatVersion();
    }

    /** Number of entries (values and tombstones). */
    public long entryCount() {
        return footer.entryCount();
    }

    /** Size of the file in bytes. */
    public long fileBytes() {
        return mapping.byteSize();
    }

    /** Smallest entry version; 0 for an empty table. */
    public long minVersion() {
        return footer.minVersion();
    }

    /** Largest entry version; 0 for an empty table. */
    public long maxVersion() {
        return footer.maxVersion();
    }

    /** Number of tombstones. */
    public long tombstoneCount() {
        return footer.tombstoneCount();
    }

    /** Number of values that carry an expiry; 0 for a table of format version 1 to 4, which does not say. */
    public long expiringCount() {
        return footer.expiringCount();
    }

    /** The largest expiry among the table's values, Unix epoch ms; 0 if none (or format version 1 to 4). */
    public long maxExpiresAt() {
        return footer.maxExpiresAt();
    }

    public Path path() {
        return path;
    }

    /**
     * Takes a reference, unless the count already reached zero (the mapping is gone).
     *
     * @return whether a reference was taken; if so, {@link #release()} must follow
     */
    public boolean tryRetain() {
        return refs.tryRetain();
    }

    /**
     * Gives a reference back; the last one unmaps the file (closing the arena waits for no thread: a
     * thread still reading without a reference would get {@link IllegalStateException}).
     *
     * @throws IllegalStateException if released more often than retained
     */
    public void release() {
        if (refs.release("SSTable " + path)) {
            arena.close();
            pinned.release(pinnedBytes);
            if (file != null) {
                file.close();
            }
        }
    }

    /**
     * Whether point reads of this table use {@code pread} now (its reads through the mapping waited for
     * the device; see {@link BlockTable}) rather than the mapping.
     */
    public boolean readsWithPread() {
        ReadPathGauge g = readPathGauge();
        return g != null && g.preads();
    }

    /**
     * How point reads of this table reach its blocks now (through the mapping or with {@code pread}), or
     * {@code null} for a version 1 table or where {@code pread} is unavailable. For tests.
     */
    ReadPathGauge readPathGauge() {
        return body instanceof BlockTable t ? t.gauge() : null;
    }

    /**
     * Whether {@code segment} lies within this table's mapping (an entry read in place, not from a copy);
     * for tests. The mapping is a plain native segment, so its class does not tell.
     */
    boolean inMapping(MemorySegment segment) {
        return segment.address() >= mapping.address()
                && segment.address() + segment.byteSize() <= mapping.address() + mapping.byteSize();
    }

    /** Bytes of native memory holding a copy of the table's index and Bloom filter; 0 if none (they are read in the mapping). */
    public long pinnedBytes() {
        return pinnedBytes;
    }

    /** Whether the mapping is still open (some reference is held); for tests and leak checks. */
    public boolean isMapped() {
        return arena.scope().isAlive();
    }

    /** Gives back the reference {@link #open} returned the reader with (see the class comment). */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "SstableReader[" + path + ", " + footer.entryCount() + " entries]";
    }

    /**
     * A cursor over every entry of the table in key order, without decoding into objects: after
     * {@link Cursor#next()} the entry is encoded (section 2.1) at {@link Cursor#offset()} of
     * {@link Cursor#segment()}, its checksum verified. For merges (compaction) that copy entries: a
     * version 2 to 4 table is read one block at a time, a version 3 or 4 compact entry is written out into the
     * cursor's buffer (which grows to the largest such entry, about a block), and an entry larger than the
     * block size is stored raw and read in place, so no large value is ever held on the heap.
     */
    public Cursor cursor() {
        return body.cursor();
    }

    /** See {@link #cursor()}. One thread at a time. */
    public interface Cursor {

        /**
         * Moves to the next entry.
         *
         * @return false past the last one
         * @throws CorruptionException if the entry, or the block it is in, is damaged
         * @throws IOException         if a read failed
         */
        boolean next() throws IOException;

        /**
         * The memory holding the current entry (the mapping, or the cursor's block buffer); valid until the
         * next {@link #next()}.
         */
        MemorySegment segment();

        /** Offset in {@link #segment()} of the current entry's encoding. */
        long offset();
    }
}
