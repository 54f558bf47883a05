package io.ringbase.storage.lsm.sstable;

import io.ringbase.storage.Entry;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** Test fixtures: write a table from a list, flip bytes, read the footer. */
final class Tables {

    private Tables() {}

    static SstableSummary write(Path file, Iterable<Entry> entries, long expected) throws IOException {
        try (SstableWriter w = new SstableWriter(file, expected)) {
            for (Entry e : entries) {
                w.add(e);
            }
            return w.finish();
        }
    }

    static SstableSummary write(Path file, List<Entry> entries) throws IOException {
        return write(file, entries, entries.size());
    }

    /** Writes a table in the format the engine writes (version 3) with blocks of {@code blockBytes}. */
    static SstableSummary write(Path file, Iterable<Entry> entries, long expected, int blockBytes) throws IOException {
        return write(file, entries, expected, blockBytes, Footer.LATEST_VERSION);
    }

    /** Writes a table in block format {@code version} (2 or 3) with blocks of {@code blockBytes}. */
    static SstableSummary write(Path file, Iterable<Entry> entries, long expected, int blockBytes, int version)
            throws IOException {
        try (SstableWriter w =
                new SstableWriter(io.ringbase.storage.lsm.io.FileIo.DISK, file, expected, blockBytes, version)) {
            for (Entry e : entries) {
                w.add(e);
            }
            return w.finish();
        }
    }

    /** Writes a format version 1 table, as the engine did before version 2 (which it must still read). */
    static SstableSummary writeV1(Path file, Iterable<Entry> entries, long expected) throws IOException {
        try (V1SstableWriter w = new V1SstableWriter(file, expected)) {
            for (Entry e : entries) {
                w.add(e);
            }
            return w.finish();
        }
    }

    static List<Entry> drain(Iterator<Entry> it) {
        List<Entry> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    /** Every entry through {@link SstableReader#cursor()}, decoded. */
    static List<Entry> drainCursor(SstableReader r) throws IOException {
        List<Entry> out = new ArrayList<>();
        SstableReader.Cursor c = r.cursor();
        while (c.next()) {
            MemorySegment s = c.segment();
            long o = c.offset();
            out.add(io.ringbase.storage.EntryFormat.read(s, o, o + io.ringbase.storage.EntryFormat.size(s, o)));
        }
        return out;
    }

    static List<Entry> scan(SstableReader r, byte[] start, byte[] end) {
        try (var it = r.iterator(start, end)) {
            return drain(it);
        }
    }

    /** XORs the byte at {@code offset} with {@code mask}. */
    static void flip(Path file, long offset, int mask) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ mask));
            ch.write(b.rewind(), offset);
        }
    }

    static void overwrite(Path file, long offset, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), offset);
        }
    }

    static Footer footer(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), Arena.ofAuto());
            return Footer.read(file, m);
        }
    }

    /** File offset of record {@code i} (its crc32c) of a version 1 table, read from the index section. */
    static long recordOffset(Path file, long i) throws IOException {
        Footer f = footer(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(8).order(io.ringbase.storage.Layouts.ORDER);
            ch.read(b, f.indexOffset() + 8 * i);
            return b.getLong(0);
        }
    }
}
