package io.ringbase.cluster.rpc;

import io.ringbase.kv.ScanShare;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The wire form of a {@link ScanShare}, the {@code share} parameter of {@code GET /internal/v0/entries}
 * (docs/http-api.md, "Share description encoding"): magic, version, epoch, the path's and the down set's
 * node URLs, then a CRC32C of every byte before it. Little-endian; hex in the query string. The down set
 * is written sorted, so one share always encodes to the same bytes. Stateless and thread-safe.
 */
public final class ShareCodec {

    /** {@code "RBSH"}. Do not change. */
    static final int MAGIC = 0x48534252; // "RBSH" read as a little-endian u32
    /** The only version so far. Do not change its meaning. */
    static final byte VERSION = 1;
    /** Most nodes in the path or the down set ({@code io.ringbase.clock.HybridLogicalClock#MAX_NODES}). */
    static final int MAX_NODES = 64;
    /** Longest URL, bytes of UTF-8. */
    static final int MAX_URL_BYTES = 1024;

    static final int HEADER_SIZE = 4 + 1 + 8; // magic, version, epoch
    static final int CRC_SIZE = 4;

    private ShareCodec() {}

    /**
     * The share's encoding: 19 bytes and 2 + its length per URL.
     *
     * @throws IllegalArgumentException if the path or the down set holds more than 64 nodes, or a URL is
     *                                  empty or longer than 1,024 bytes
     */
    public static byte[] encode(ScanShare share) {
        List<byte[]> path = urls(share.path(), "path");
        List<byte[]> down = urls(share.down().stream().sorted().toList(), "down set");
        int size = HEADER_SIZE + 1 + 1 + CRC_SIZE; // + pathCount, downCount
        for (byte[] u : path) {
            size += 2 + u.length;
        }
        for (byte[] u : down) {
            size += 2 + u.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).put(VERSION).putLong(share.epoch());
        put(b, path);
        put(b, down);
        b.putInt(crc(b.array(), b.position()));
        return b.array();
    }

    /**
     * Decodes an {@link #encode}d share.
     *
     * @throws IllegalArgumentException naming what is wrong: a short body, a checksum mismatch, an unknown
     *                                  magic or version, a count or URL length out of range, a URL that is
     *                                  not UTF-8, bytes left over, an empty path
     */
    public static ScanShare decode(byte[] bytes) {
        if (bytes.length < HEADER_SIZE + 2 + CRC_SIZE) {
            throw new IllegalArgumentException("share description of " + bytes.length + " bytes is too short");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int stored = b.getInt(bytes.length - CRC_SIZE);
        int actual = crc(bytes, bytes.length - CRC_SIZE);
        if (stored != actual) {
            throw new IllegalArgumentException("share description checksum mismatch: stored "
                    + Integer.toHexString(stored) + ", computed " + Integer.toHexString(actual));
        }
        b.limit(bytes.length - CRC_SIZE);
        try {
            if (b.getInt() != MAGIC) {
                throw new IllegalArgumentException("not a share description (bad magic)");
            }
            byte version = b.get();
            if (version != VERSION) {
                throw new IllegalArgumentException(
                        "unknown share description version " + version + ", this node reads " + VERSION);
            }
            long epoch = b.getLong();
            List<String> path = strings(b, "path");
            List<String> down = strings(b, "down set");
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(
                        "share description has " + b.remaining() + " bytes after its down set");
            }
            return new ScanShare(epoch, new LinkedHashSet<>(down), path); // refuses an empty path
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("share description is truncated", e);
        }
    }

    private static List<byte[]> urls(List<String> urls, String what) {
        if (urls.size() > MAX_NODES) {
            throw new IllegalArgumentException(
                    "a share's " + what + " of " + urls.size() + " nodes exceeds " + MAX_NODES);
        }
        List<byte[]> out = new ArrayList<>(urls.size());
        for (String u : urls) {
            byte[] bytes = u.getBytes(StandardCharsets.UTF_8);
            if (bytes.length < 1 || bytes.length > MAX_URL_BYTES) {
                throw new IllegalArgumentException(
                        "node URL of " + bytes.length + " bytes, must be 1.." + MAX_URL_BYTES);
            }
            out.add(bytes);
        }
        return out;
    }

    private static void put(ByteBuffer b, List<byte[]> urls) {
        b.put((byte) urls.size());
        for (byte[] u : urls) {
            b.putShort((short) u.length).put(u);
        }
    }

    private static List<String> strings(ByteBuffer b, String what) {
        int count = Byte.toUnsignedInt(b.get());
        if (count > MAX_NODES) {
            throw new IllegalArgumentException("a share's " + what + " of " + count + " nodes exceeds " + MAX_NODES);
        }
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = Short.toUnsignedInt(b.getShort());
            if (length < 1 || length > MAX_URL_BYTES) {
                throw new IllegalArgumentException(
                        "node URL of " + length + " bytes in the " + what + ", must be 1.." + MAX_URL_BYTES);
            }
            byte[] bytes = new byte[length];
            b.get(bytes);
            try {
                out.add(StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes))
                        .toString());
            } catch (CharacterCodingException e) {
                throw new IllegalArgumentException("a node URL in the " + what + " is not UTF-8", e);
            }
        }
        return out;
    }

    private static int crc(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }
}
