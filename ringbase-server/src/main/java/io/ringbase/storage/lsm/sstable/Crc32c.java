package io.ringbase.storage.lsm.sstable;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/** CRC32C over {@link MemorySegment} ranges of any length (a {@code ByteBuffer} view holds at most 2 GiB). */
final class Crc32c {

    /** Largest slice handed to {@link CRC32C#update(java.nio.ByteBuffer)} at once. */
    private static final long CHUNK = 1L << 30;

    private Crc32c() {}

    /** CRC32C of all bytes of {@code segment}, as the u32 stored on disk (in an {@code int}). */
    static int of(MemorySegment segment) {
        CRC32C crc = new CRC32C();
        update(crc, segment);
        return (int) crc.getValue();
    }

    /** Records up to this size are checksummed from a per-thread copy, which allocates nothing. */
    private static final int SMALL = 8192;

    /** Per-thread scratch of {@link #of(MemorySegment, long, long)}: a checksum and a buffer of {@link #SMALL} bytes. */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private static final class Scratch {
        final CRC32C crc = new CRC32C();
        final byte[] bytes = new byte[SMALL];
    }

    /**
     * CRC32C of {@code length} bytes at {@code offset} of {@code segment}. A short range (a point read's
     * entry) is copied into a per-thread buffer and checksummed there with the intrinsic: no slice or
     * {@code ByteBuffer} view is allocated per call, which mattered on the read path (mapped-segment
     * slices and their buffers were a third of a GET's allocated bytes).
     */
    static int of(MemorySegment segment, long offset, long length) {
        if (length > SMALL) {
            return of(segment.asSlice(offset, length));
        }
        Scratch s = SCRATCH.get();
        MemorySegment.copy(segment, java.lang.foreign.ValueLayout.JAVA_BYTE, offset, s.bytes, 0, (int) length);
        s.crc.reset();
        s.crc.update(s.bytes, 0, (int) length);
        return (int) s.crc.getValue();
    }

    static void update(CRC32C crc, MemorySegment segment) {
        for (long p = 0; p < segment.byteSize(); p += CHUNK) {
            crc.update(
                    segment.asSlice(p, Math.min(CHUNK, segment.byteSize() - p)).asByteBuffer());
        }
    }
}
