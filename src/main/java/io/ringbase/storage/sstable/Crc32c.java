package io.ringbase.storage.sstable;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/** CRC32C over {@link MemorySegment} ranges of any length (a {@code ByteBuffer} view holds at most 2 GiB). */
final class Crc32c {

    /** Largest slice handed to {@link CRC32C#update(java.nio.ByteBuffer)} at once. */
    private static final long CHUNK = 1L << 30;

    private Crc32c() {
    }

    /** CRC32C of all bytes of {@code segment}, as the u32 stored on disk (in an {@code int}). */
    static int of(MemorySegment segment) {
        CRC32C crc = new CRC32C();
        update(crc, segment);
        return (int) crc.getValue();
    }

    static void update(CRC32C crc, MemorySegment segment) {
        for (long p = 0; p < segment.byteSize(); p += CHUNK) {
            crc.update(segment.asSlice(p, Math.min(CHUNK, segment.byteSize() - p)).asByteBuffer());
        }
    }
}
