package io.ringbase.storage.lsm.wal;

import io.ringbase.storage.ContentType;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Layouts;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Constants of the WAL segment format, shared by {@link WalWriter} and {@link WalReader}; the format
 * itself is specified in {@code docs/format.md}, section 3 ("WAL segment"). Integers are
 * little-endian ({@link io.ringbase.storage.Layouts}).
 */
final class WalFormat {

    /** First u32 of every segment; its little-endian bytes read "RBWL". */
    static final int MAGIC = 0x4C57_4252;

    /**
     * Format version written into new segments. Version 2 added the {@link RecordType#PREDECESSOR}
     * record; the reader accepts versions 1 and 2.
     */
    static final int VERSION = 2;

    /** The first version, still read: records of type FULL only. */
    static final int VERSION_1 = 1;

    static final int SEGMENT_HEADER_SIZE = 4 + 4; // magic, version

    static final int RECORD_HEADER_SIZE = 4 + 4 + 1; // crc32c, length, type
    static final int OFF_CRC = 0;
    static final int OFF_LENGTH = 4;
    static final int OFF_TYPE = 8;

    /** Payload of a {@link RecordType#PREDECESSOR} record, bytes. */
    static final int PREDECESSOR_PAYLOAD = 8 + 8; // segment number, its acknowledged length

    /** Size of a whole {@link RecordType#PREDECESSOR} record, header included, bytes. */
    static final int PREDECESSOR_RECORD_SIZE = RECORD_HEADER_SIZE + PREDECESSOR_PAYLOAD;

    /** Largest value a record is guaranteed to carry, in bytes (16 MiB). */
    static final int MAX_VALUE_BYTES = 16 * 1024 * 1024;

    /**
     * Largest payload (one encoded entry) a record may carry, in bytes: a 16 MiB value with the longest
     * content type prefix, a 64 KiB key.
     */
    static final int MAX_PAYLOAD =
            EntryFormat.HEADER_SIZE + Entry.MAX_KEY_BYTES + MAX_VALUE_BYTES + ContentType.MAX_PREFIX_BYTES;

    /** Persisted record types. The codes are on disk: do not change them, only add new ones. */
    enum RecordType {
        /** A record holding exactly one encoded {@link Entry}. */
        FULL(1),
        /**
         * Since version 2, only as a segment's first record: the number of the segment that was active before
         * this one and how many of its bytes acknowledged writes need (RocksDB's {@code PredecessorWALInfo}).
         * Recovery replays this segment only if that one is that long.
         */
        PREDECESSOR(2);

        // 0 is reserved: a zero header is what preallocated or zero-filled space looks like.

        final byte code;

        RecordType(int code) {
            this.code = (byte) code;
        }

        /** The type with this on-disk code, or {@code null} if unknown. */
        static RecordType of(byte code) {
            for (RecordType t : values()) {
                if (t.code == code) {
                    return t;
                }
            }
            return null;
        }
    }

    /** The {@link RecordType#PREDECESSOR} record naming segment {@code number} and its length {@code bytes}, flipped. */
    static ByteBuffer predecessorRecord(long number, long bytes) {
        ByteBuffer b = ByteBuffer.allocateDirect(PREDECESSOR_RECORD_SIZE).order(Layouts.ORDER);
        b.putInt(0)
                .putInt(PREDECESSOR_PAYLOAD)
                .put(RecordType.PREDECESSOR.code)
                .putLong(number)
                .putLong(bytes);
        CRC32C crc = new CRC32C();
        crc.update(b.flip().position(OFF_LENGTH));
        return b.putInt(OFF_CRC, (int) crc.getValue()).rewind();
    }

    private WalFormat() {}
}
