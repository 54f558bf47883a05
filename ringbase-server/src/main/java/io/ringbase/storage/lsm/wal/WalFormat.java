package io.ringbase.storage.lsm.wal;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;

/**
 * Constants of the WAL segment format, shared by {@link WalWriter} and {@link WalReader}; the format
 * itself is specified in {@code docs/format.md}, section 3 ("WAL segment"). Integers are
 * little-endian ({@link io.ringbase.storage.Layouts}).
 */
final class WalFormat {

    /** First u32 of every segment; its little-endian bytes read "RBWL". */
    static final int MAGIC = 0x4C57_4252;

    /** Format version written into new segments; the only one the reader accepts. */
    static final int VERSION = 1;

    static final int SEGMENT_HEADER_SIZE = 4 + 4; // magic, version

    static final int RECORD_HEADER_SIZE = 4 + 4 + 1; // crc32c, length, type
    static final int OFF_CRC = 0;
    static final int OFF_LENGTH = 4;
    static final int OFF_TYPE = 8;

    /** Largest value a record is guaranteed to carry, in bytes (16 MiB). */
    static final int MAX_VALUE_BYTES = 16 * 1024 * 1024;

    /** Largest payload (one encoded entry) a record may carry, in bytes: 16 MiB value, 64 KiB key. */
    static final int MAX_PAYLOAD = EntryFormat.HEADER_SIZE + Entry.MAX_KEY_BYTES + MAX_VALUE_BYTES;

    /** Persisted record types. The codes are on disk: do not change them, only add new ones. */
    enum RecordType {
        /** A record holding exactly one encoded {@link Entry}. */
        FULL(1);

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

    private WalFormat() {}
}
