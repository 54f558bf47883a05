package io.ringbase.cluster.membership;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The node identity file, {@code <data-dir>/cluster/identity} ({@code docs/format.md}, "Node identity"),
 * little-endian:
 *
 * <pre>
 * magic        4 bytes "RBID"
 * version      u8      1
 * state        u8      the state's letter: 'P', 'N' or 'R' ({@link NodeState#code()})
 * nodeId       u16
 * incarnation  i64
 * createdAtMs  i64     Unix epoch ms
 * nameLength   u16     bytes of clusterName, 1..64
 * clusterName  UTF-8
 * crc32c       u32     CRC32C of every byte before it
 * </pre>
 *
 * Written whole to a temporary file, fsynced, renamed over the old one and the directory fsynced, so a
 * crash leaves the old identity or the new one.
 */
public final class IdentityFile {

    /** The directory, under the data directory, of the files of this package. */
    public static final String DIR = "cluster";
    /** The file's name in {@link #DIR}. */
    public static final String NAME = "identity";

    static final int VERSION = 1;
    private static final byte[] MAGIC = {'R', 'B', 'I', 'D'};
    private static final int FIXED = 4 + 1 + 1 + 2 + 8 + 8 + 2;

    private IdentityFile() {}

    /** The identity file of the node whose data directory is {@code dataDir}. */
    public static Path path(Path dataDir) {
        return dataDir.resolve(DIR).resolve(NAME);
    }

    /**
     * Reads the identity of {@code dataDir}.
     *
     * @return it, or {@code null} if the data directory has none yet
     * @throws CorruptionException if the file is damaged (checksum, magic, version, lengths)
     * @throws IOException         if it cannot be read
     */
    public static @Nullable NodeIdentity read(Path dataDir) throws IOException {
        Path file = path(dataDir);
        if (!Files.exists(file)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(file);
        try {
            return decode(bytes);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(file, 0, e.getMessage(), e);
        }
    }

    /**
     * Stores {@code identity} as the identity of {@code dataDir}, replacing any earlier one atomically.
     *
     * @throws IOException if it cannot be written and synced
     */
    public static void write(Path dataDir, NodeIdentity identity) throws IOException {
        DataDirectory.writeAtomically(path(dataDir), encode(identity));
    }

    static byte[] encode(NodeIdentity id) {
        byte[] name = id.clusterName().getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(FIXED + name.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC)
                .put((byte) VERSION)
                .put((byte) id.state().code())
                .putShort((short) id.nodeId())
                .putLong(id.incarnation())
                .putLong(id.createdAtMs())
                .putShort((short) name.length)
                .put(name);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    static NodeIdentity decode(byte[] bytes) {
        if (bytes.length < FIXED + 4) {
            throw new IllegalArgumentException("identity file of " + bytes.length + " bytes is too short");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        if ((int) crc.getValue() != b.getInt(bytes.length - 4)) {
            throw new IllegalArgumentException("identity file checksum mismatch");
        }
        byte[] magic = new byte[4];
        b.get(magic);
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new IllegalArgumentException("not an identity file (bad magic)");
        }
        int version = b.get() & 0xFF;
        if (version != VERSION) {
            throw new IllegalArgumentException("identity file version " + version + " is not " + VERSION);
        }
        NodeState state = NodeState.ofCode((char) (b.get() & 0xFF));
        int nodeId = b.getShort() & 0xFFFF;
        long incarnation = b.getLong();
        long createdAtMs = b.getLong();
        int nameLength = b.getShort() & 0xFFFF;
        if (nameLength != bytes.length - FIXED - 4) {
            throw new IllegalArgumentException("identity file name length " + nameLength + " does not fit its size");
        }
        byte[] name = new byte[nameLength];
        b.get(name);
        return new NodeIdentity(new String(name, StandardCharsets.UTF_8), nodeId, incarnation, state, createdAtMs);
    }
}
