package io.ringbase.storage.lsm.sstable;

import io.ringbase.storage.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * The compression codes of SSTable blocks ({@code docs/format.md}, sections 4.8 and 4.9) and the LZ4
 * block codec behind code 1: lz4-java's fastest instance (its JNI binding of the reference LZ4 where the
 * native library loads, else its pure Java port; both write and read the same block format). Only the
 * safe decompressor is used, which never reads or writes outside the buffers given, whatever the input.
 */
final class BlockCompression {

    /** Compression code: the payload is the raw block. Persisted: do not change. */
    static final byte NONE = 0;
    /** Compression code: the payload is the raw block in the LZ4 block format. Persisted: do not change. */
    static final byte LZ4 = 1;
    /**
     * Compression code, format versions 3 and 4 only: the payload is a raw block of one entry in the section 2.1
     * encoding (not the compact one), as an entry larger than the block size is written so that a reader
     * reaches its value in place. Persisted: do not change.
     */
    static final byte SINGLE_ENTRY = 2;

    private static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
    private static final LZ4Compressor COMPRESSOR = FACTORY.fastCompressor();
    private static final LZ4SafeDecompressor DECOMPRESSOR = FACTORY.safeDecompressor();

    private BlockCompression() {}

    /** The most bytes {@link #compress} writes for {@code rawLength} bytes of input. */
    static int maxCompressedLength(int rawLength) {
        return COMPRESSOR.maxCompressedLength(rawLength);
    }

    /**
     * Compresses {@code src[0, length)} into {@code dst[0, dst.capacity())} (at least
     * {@link #maxCompressedLength} of {@code length}). Both are direct buffers over the engine's native
     * scratch memory; their positions and limits are not used or changed.
     *
     * @return the compressed length in bytes
     */
    static int compress(ByteBuffer src, int length, ByteBuffer dst) {
        return COMPRESSOR.compress(src, 0, length, dst, 0, dst.capacity());
    }

    /**
     * Decompresses the LZ4 payload {@code src[0, srcLength)} into {@code dst[0, rawLength)}; positions and
     * limits are not used or changed.
     *
     * @param file   the table, for the error
     * @param offset the payload's offset in the file, for the error
     * @throws CorruptionException if the payload is not valid LZ4 or does not decompress to exactly
     *                             {@code rawLength} bytes
     */
    static void decompress(Path file, long offset, ByteBuffer src, int srcLength, ByteBuffer dst, int rawLength)
            throws CorruptionException {
        int n;
        try {
            n = DECOMPRESSOR.decompress(src, 0, srcLength, dst, 0, rawLength);
        } catch (LZ4Exception e) {
            throw new CorruptionException(file, offset, "block does not decompress: " + e.getMessage(), e);
        }
        if (n != rawLength) {
            throw new CorruptionException(
                    file, offset, "block decompresses to " + n + " bytes, the index says " + rawLength);
        }
    }
}
