package io.ringbase.cluster.membership;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The incarnation of each peer this node last knew as a full replica ({@link NodeState#NORMAL}): how a
 * node that lost its data learns it did. Stored in {@code <data-dir>/cluster/peers} ({@code docs/format.md},
 * "Peer memory"), little-endian:
 *
 * <pre>
 * magic        4 bytes "RBPM"
 * version      u8      1
 * count        u16     peers that follow
 * per peer:    urlLength u16, url UTF-8 ("http://host:port"), incarnation i64
 * crc32c       u32     CRC32C of every byte before it
 * </pre>
 *
 * Rewritten whole (as {@link IdentityFile}) when a peer's incarnation changes, which happens once per
 * peer and per replacement. Thread-safe.
 */
public final class PeerMemory {

    /** The file's name under {@link IdentityFile#DIR}. */
    public static final String NAME = "peers";

    private static final byte[] MAGIC = {'R', 'B', 'P', 'M'};
    private static final int VERSION = 1;

    private final Path file;
    private final Map<String, Long> incarnations; // guarded by this

    private PeerMemory(Path file, Map<String, Long> incarnations) {
        this.file = file;
        this.incarnations = incarnations;
    }

    /**
     * Opens the peer memory of {@code dataDir} (empty if it has none yet).
     *
     * @throws CorruptionException if the file is damaged
     * @throws IOException         if it cannot be read
     */
    public static PeerMemory open(Path dataDir) throws IOException {
        Path file = dataDir.resolve(IdentityFile.DIR).resolve(NAME);
        if (!Files.exists(file)) {
            return new PeerMemory(file, new LinkedHashMap<>());
        }
        try {
            return new PeerMemory(file, decode(Files.readAllBytes(file)));
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
            throw new CorruptionException(file, 0, "peer memory: " + e.getMessage(), e);
        }
    }

    /** The incarnation last known of the peer at {@code url} as a full replica, or {@code null} if none. */
    public synchronized @Nullable Long incarnationOf(String url) {
        return incarnations.get(url);
    }

    /**
     * Remembers that the peer at {@code url} is a full replica in incarnation {@code incarnation}; stored
     * durably before this returns when it changed.
     *
     * @return whether it changed
     * @throws IOException if it cannot be stored (the memory is unchanged then)
     */
    public synchronized boolean remember(String url, long incarnation) throws IOException {
        Long old = incarnations.get(url);
        if (old != null && old == incarnation) {
            return false;
        }
        Map<String, Long> next = new LinkedHashMap<>(incarnations);
        next.put(url, incarnation);
        DataDirectory.writeAtomically(file, encode(next));
        incarnations.put(url, incarnation);
        return true;
    }

    static byte[] encode(Map<String, Long> peers) {
        int size = 4 + 1 + 2 + 4;
        for (String url : peers.keySet()) {
            size += 2 + url.getBytes(StandardCharsets.UTF_8).length + 8;
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).put((byte) VERSION).putShort((short) peers.size());
        peers.forEach((url, incarnation) -> {
            byte[] u = url.getBytes(StandardCharsets.UTF_8);
            b.putShort((short) u.length).put(u).putLong(incarnation);
        });
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    static Map<String, Long> decode(byte[] bytes) {
        if (bytes.length < 4 + 1 + 2 + 4) {
            throw new IllegalArgumentException(bytes.length + " bytes is too short");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if ((int) crc.getValue() != b.getInt(bytes.length - 4)) {
            throw new IllegalArgumentException("checksum mismatch");
        }
        byte[] magic = new byte[4];
        b.get(magic);
        if (!Arrays.equals(magic, MAGIC) || (b.get() & 0xFF) != VERSION) {
            throw new IllegalArgumentException("bad magic or version");
        }
        int count = b.getShort() & 0xFFFF;
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            byte[] u = new byte[b.getShort() & 0xFFFF];
            b.get(u);
            out.put(new String(u, StandardCharsets.UTF_8), b.getLong());
        }
        if (b.position() != bytes.length - 4) {
            throw new IllegalArgumentException("trailing bytes");
        }
        return out;
    }
}
