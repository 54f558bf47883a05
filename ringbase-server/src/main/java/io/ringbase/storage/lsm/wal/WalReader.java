package io.ringbase.storage.lsm.wal;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays a WAL segment written by {@link WalWriter}, applying the reader rules of
 * {@code docs/format.md}, section 3.3: a torn tail (the last record cut off, a bad last record, or
 * trailing zero bytes) ends the replay quietly apart from a warning; damage followed by more data is
 * corruption and throws. A segment's {@code PREDECESSOR} record is no entry: {@link #predecessor} reads
 * it, for recovery to decide whether the segment follows the one before it. Stateless; {@link #replay}
 * may run concurrently on different files.
 */
public final class WalReader {

    private static final Logger log = LoggerFactory.getLogger(WalReader.class);

    /**
     * What a replay found.
     *
     * @param records    number of records passed to the sink
     * @param validBytes length in bytes of the valid prefix of the file (segment header plus every
     *                   replayed record); a writer continuing the log would truncate to it
     * @param tornTail   true if bytes after {@code validBytes} were ignored as a torn tail, or the file
     *                   was shorter than its segment header
     */
    public record ReplayResult(long records, long validBytes, boolean tornTail) {}

    /**
     * A segment's {@code PREDECESSOR} record (docs/format.md, section 3): the segment active before it.
     *
     * @param number the earlier segment's file number
     * @param bytes  how long that segment must be for this one's records to follow every acknowledged
     *               write there, bytes
     */
    public record Predecessor(long number, long bytes) {}

    private WalReader() {}

    /** Size of a segment header, bytes: a segment no longer than this holds no record. */
    public static int headerBytes() {
        return WalFormat.SEGMENT_HEADER_SIZE;
    }

    /**
     * The {@code PREDECESSOR} record at the start of {@code file}, if it holds a whole, valid one (a
     * version-1 segment, a torn one, or one made at open has none).
     *
     * @throws IOException if the file cannot be read
     */
    public static Optional<Predecessor> predecessor(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER_SIZE + WalFormat.PREDECESSOR_RECORD_SIZE)
                .order(Layouts.ORDER);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (b.hasRemaining() && channel.read(b) >= 0) {
                // read the header and the first record's worth of bytes, or the whole file if shorter
            }
        }
        if (b.hasRemaining() || b.getInt(0) != WalFormat.MAGIC || b.getInt(4) != WalFormat.VERSION) {
            return Optional.empty();
        }
        int at = WalFormat.SEGMENT_HEADER_SIZE;
        if (b.getInt(at + WalFormat.OFF_LENGTH) != WalFormat.PREDECESSOR_PAYLOAD
                || b.get(at + WalFormat.OFF_TYPE) != WalFormat.RecordType.PREDECESSOR.code) {
            return Optional.empty();
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), at + WalFormat.OFF_LENGTH, WalFormat.PREDECESSOR_RECORD_SIZE - WalFormat.OFF_LENGTH);
        if ((int) crc.getValue() != b.getInt(at + WalFormat.OFF_CRC)) {
            return Optional.empty();
        }
        int payload = at + WalFormat.RECORD_HEADER_SIZE;
        return Optional.of(new Predecessor(b.getLong(payload), b.getLong(payload + 8)));
    }

    /**
     * Replays every valid record of {@code file}, in file order, into {@code sink}. Entries passed to
     * the sink own their arrays. The sink has already seen all records before a corruption when this
     * throws.
     *
     * @throws CorruptionException if the magic number or version is unknown, or a damaged record is
     *                             followed by more non-zero data (offset and cause in the exception)
     * @throws IOException         if the file cannot be read
     */
    public static ReplayResult replay(Path file, Consumer<Entry> sink) throws IOException {
        return replay(file, sink, WalRecoveryMode.REFUSE);
    }

    /**
     * {@link #replay(Path, Consumer)} with {@code mode} deciding what a damaged record followed by more
     * data means: corruption ({@link WalRecoveryMode#REFUSE}), or the end of the valid prefix, the rest
     * dropped with an ERROR log line naming the file, offset and bytes dropped
     * ({@link WalRecoveryMode#TRUNCATE_AFTER_CORRUPTION}; the result then says {@code tornTail}).
     * A bad segment header is corruption in either mode.
     */
    public static ReplayResult replay(Path file, Consumer<Entry> sink, WalRecoveryMode mode) throws IOException {
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(mode, "mode");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                Arena arena = Arena.ofConfined()) {
            long size = channel.size();
            MemorySegment seg =
                    size == 0 ? MemorySegment.NULL : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            return new Replay(file, seg, size, sink, mode).run();
        }
    }

    /** One pass over a mapped segment. */
    private static final class Replay {
        private final Path file;
        private final MemorySegment seg;
        private final long size;
        private final Consumer<Entry> sink;
        private final WalRecoveryMode mode;
        private final CRC32C crc = new CRC32C();
        private long records;
        private String tornWhat;

        Replay(Path file, MemorySegment seg, long size, Consumer<Entry> sink, WalRecoveryMode mode) {
            this.mode = mode;
            this.file = file;
            this.seg = seg;
            this.size = size;
            this.sink = sink;
        }

        ReplayResult run() throws CorruptionException {
            if (size < WalFormat.SEGMENT_HEADER_SIZE) {
                checkHeaderPrefix();
                return torn(
                        size, "segment header cut off (" + size + " of " + WalFormat.SEGMENT_HEADER_SIZE + " bytes)");
            }
            int magic = seg.get(I32, 0);
            if (magic != WalFormat.MAGIC) {
                throw new CorruptionException(file, 0, "not a WAL segment: magic 0x" + Integer.toHexString(magic));
            }
            int version = seg.get(I32, 4);
            if (version != WalFormat.VERSION && version != WalFormat.VERSION_1) {
                throw new CorruptionException(
                        file, 4, "unknown WAL format version " + Integer.toUnsignedString(version));
            }
            long pos = WalFormat.SEGMENT_HEADER_SIZE;
            if (version >= WalFormat.VERSION && isPredecessorRecord(pos)) {
                pos += WalFormat.PREDECESSOR_RECORD_SIZE; // not an entry: recovery reads it with predecessor()
            }
            while (pos < size) {
                long next = readRecord(pos);
                if (next < 0) {
                    return torn(pos, tornWhat);
                }
                pos = next;
            }
            return new ReplayResult(records, pos, false);
        }

        /** Whether a whole, valid {@code PREDECESSOR} record is at {@code pos}. */
        private boolean isPredecessorRecord(long pos) {
            if (size - pos < WalFormat.PREDECESSOR_RECORD_SIZE
                    || seg.get(I32, pos + WalFormat.OFF_LENGTH) != WalFormat.PREDECESSOR_PAYLOAD
                    || seg.get(U8, pos + WalFormat.OFF_TYPE) != WalFormat.RecordType.PREDECESSOR.code) {
                return false;
            }
            crc.reset();
            crc.update(seg.asSlice(pos + WalFormat.OFF_LENGTH, WalFormat.PREDECESSOR_RECORD_SIZE - WalFormat.OFF_LENGTH)
                    .asByteBuffer());
            return (int) crc.getValue() == seg.get(I32, pos + WalFormat.OFF_CRC);
        }

        /** A file shorter than the header must hold a prefix of one, as a crash right after create leaves. */
        private void checkHeaderPrefix() throws CorruptionException {
            long mismatch = headerPrefixMismatch(WalFormat.VERSION);
            if (mismatch >= 0 && headerPrefixMismatch(WalFormat.VERSION_1) >= 0) {
                throw new CorruptionException(file, mismatch, "not a WAL segment: header prefix does not match");
            }
        }

        /** The first byte at which the file differs from the segment header of {@code version}, or -1. */
        private long headerPrefixMismatch(int version) {
            for (long i = 0; i < size; i++) {
                byte expected = (byte) ((i < 4 ? WalFormat.MAGIC : version) >>> (8 * (i % 4)));
                if (seg.get(U8, i) != expected) {
                    return i;
                }
            }
            return -1;
        }

        /**
         * Replays the record at {@code pos} and returns the offset past it, or -1 if it is a torn tail.
         *
         * @throws CorruptionException if the record is damaged and more non-zero data follows
         */
        private long readRecord(long pos) throws CorruptionException {
            long remaining = size - pos;
            if (remaining < WalFormat.RECORD_HEADER_SIZE) {
                tornWhat = "record header cut off"; // or a few trailing zeros
                return -1;
            }
            long length = seg.get(I32, pos + WalFormat.OFF_LENGTH) & 0xFFFFFFFFL;
            byte type = seg.get(U8, pos + WalFormat.OFF_TYPE);
            int storedCrc = seg.get(I32, pos + WalFormat.OFF_CRC);
            long payload = pos + WalFormat.RECORD_HEADER_SIZE;
            if (storedCrc == 0 && length == 0 && type == 0) {
                return damaged(pos, payload, "zero record header");
            }
            if (length < EntryFormat.HEADER_SIZE || length > WalFormat.MAX_PAYLOAD) {
                return damaged(pos, payload, "record length " + length + " out of range");
            }
            if (length > size - payload) {
                // Payload cut off by the end of the file: a torn append, unless the entry header inside
                // says the record should have ended earlier, i.e. the length field itself is damaged.
                if (size - payload >= EntryFormat.HEADER_SIZE) {
                    long declared = declaredEntrySize(payload);
                    if (declared != length) {
                        return damaged(
                                pos,
                                Math.min(size, payload + declared),
                                "record length " + length + " disagrees with its entry (" + declared + " bytes)");
                    }
                }
                tornWhat = "record payload cut off (" + (size - payload) + " of " + length + " bytes)";
                return -1;
            }
            long end = payload + length;
            crc.reset();
            crc.update(seg.asSlice(pos + WalFormat.OFF_LENGTH, end - pos - WalFormat.OFF_LENGTH)
                    .asByteBuffer());
            if ((int) crc.getValue() != storedCrc) {
                return damaged(pos, end, "record checksum mismatch");
            }
            if (WalFormat.RecordType.of(type) != WalFormat.RecordType.FULL) {
                return damaged(pos, end, "unknown record type " + (type & 0xFF));
            }
            Entry entry;
            try {
                long entrySize = EntryFormat.checkedSize(seg, payload, end);
                if (entrySize != length) {
                    return damaged(pos, end, "entry of " + entrySize + " bytes in a record of " + length);
                }
                entry = EntryFormat.read(seg, payload, end);
            } catch (IllegalArgumentException e) {
                return damaged(pos, end, "invalid entry: " + e.getMessage());
            }
            sink.accept(entry);
            records++;
            return end;
        }

        /** Size the entry header at {@code offset} declares, without checking it against any limit. */
        private long declaredEntrySize(long offset) {
            // keyLength and valueLength are the last two u32 of the entry header
            long keyLen = seg.get(I32, offset + EntryFormat.HEADER_SIZE - 8) & 0xFFFFFFFFL;
            long valueLen = seg.get(I32, offset + EntryFormat.HEADER_SIZE - 4) & 0xFFFFFFFFL;
            return EntryFormat.HEADER_SIZE + keyLen + valueLen;
        }

        /**
         * A damaged record at {@code pos} whose bytes end at {@code end}: a torn tail (-1) if only zero
         * bytes follow, corruption otherwise.
         */
        private long damaged(long pos, long end, String what) throws CorruptionException {
            for (long i = end; i < size; i++) {
                if (seg.get(U8, i) != 0) {
                    if (mode == WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION) {
                        log.error(
                                "WAL segment {}: {} at byte {}, followed by more data at byte {}: dropping the "
                                        + "{} bytes from byte {} on (--wal-recovery={}); {} records before it replayed",
                                file,
                                what,
                                pos,
                                i,
                                size - pos,
                                pos,
                                mode.flag(),
                                records);
                        tornWhat = what + " (dropped with what follows)";
                        return -1;
                    }
                    throw new CorruptionException(
                            file,
                            pos,
                            what + ", followed by more data at byte " + i
                                    + "; to start anyway, replaying up to the last good record and dropping the rest of "
                                    + "this segment, use --wal-recovery="
                                    + WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION.flag());
                }
            }
            tornWhat = what + " in the last record";
            return -1;
        }

        private ReplayResult torn(long validBytes, String what) {
            log.warn(
                    "WAL segment {}: torn tail at byte {} ({}): ignoring {} bytes after {} records",
                    file,
                    validBytes,
                    what,
                    size - validBytes,
                    records);
            return new ReplayResult(records, validBytes, true);
        }
    }
}
