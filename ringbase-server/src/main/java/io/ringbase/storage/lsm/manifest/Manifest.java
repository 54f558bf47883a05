package io.ringbase.storage.lsm.manifest;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Layouts;
import io.ringbase.storage.lsm.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Reads and atomically replaces the {@code MANIFEST} file of a data directory
 * ({@code docs/format.md}, section 5):
 *
 * <pre>
 * manifest       := magic version nextFileNumber walReplayFrom tableCount tableNumber* crc
 * magic          u32  0x464D4252 ("RBMF" in file order)
 * version        u32  1
 * nextFileNumber i64
 * walReplayFrom  i64
 * tableCount     u32
 * tableNumber    i64  (tableCount times)
 * crc            u32  CRC32C of every preceding byte
 * </pre>
 *
 * A write goes to {@code MANIFEST.tmp}, is fsynced, renamed over {@code MANIFEST}, and the directory is
 * fsynced: a crash leaves either the old or the new manifest, never a mix.
 */
public final class Manifest {

    /** "RBMF" as little-endian u32. Do not change. */
    static final int MAGIC = 0x464D4252;
    /** Current format version. */
    static final int VERSION = 1;

    static final int HEADER_SIZE = 4 + 4 + 8 + 8 + 4; // magic, version, nextFileNumber, walReplayFrom, tableCount
    static final int CRC_SIZE = 4;

    private Manifest() {}

    /**
     * Reads the manifest of {@code dir}.
     *
     * @return empty if there is no manifest file
     * @throws CorruptionException on a bad magic, unknown version, bad length or checksum mismatch
     */
    public static Optional<ManifestState> read(Path dir) throws IOException {
        Path file = FileNames.manifest(dir);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return Optional.of(decode(file, bytes));
    }

    // Both go through a ByteBuffer, not a heap MemorySegment: the engine's segment code then meets native
    // segments only (a manifest is written at every flush and compaction; SstableWriter's buffers say why).
    static ManifestState decode(Path file, byte[] bytes) throws CorruptionException {
        ByteBuffer s = ByteBuffer.wrap(bytes).order(Layouts.ORDER);
        if (bytes.length < HEADER_SIZE + CRC_SIZE) {
            throw new CorruptionException(file, 0, "manifest of " + bytes.length + " bytes is shorter than its header");
        }
        if (s.getInt(0) != MAGIC) {
            throw new CorruptionException(file, 0, "bad manifest magic 0x" + Integer.toHexString(s.getInt(0)));
        }
        int version = s.getInt(4);
        if (version != VERSION) {
            throw new CorruptionException(file, 4, "unknown manifest version " + version);
        }
        long count = s.getInt(24) & 0xFFFFFFFFL;
        long expected = HEADER_SIZE + count * 8 + CRC_SIZE;
        if (expected != bytes.length) {
            throw new CorruptionException(
                    file, 24, "manifest lists " + count + " tables but has " + bytes.length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - CRC_SIZE);
        int stored = s.getInt(bytes.length - CRC_SIZE);
        if ((int) crc.getValue() != stored) {
            throw new CorruptionException(file, bytes.length - CRC_SIZE, "manifest checksum mismatch");
        }
        List<Long> tables = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            tables.add(s.getLong(HEADER_SIZE + 8 * i));
        }
        try {
            return new ManifestState(s.getLong(8), s.getLong(16), tables);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(file, 8, e.getMessage());
        }
    }

    static byte[] encode(ManifestState state) {
        int n = state.liveTables().size();
        byte[] bytes = new byte[HEADER_SIZE + 8 * n + CRC_SIZE];
        ByteBuffer s = ByteBuffer.wrap(bytes).order(Layouts.ORDER);
        s.putInt(0, MAGIC);
        s.putInt(4, VERSION);
        s.putLong(8, state.nextFileNumber());
        s.putLong(16, state.walReplayFrom());
        s.putInt(24, n);
        for (int i = 0; i < n; i++) {
            s.putLong(HEADER_SIZE + 8 * i, state.liveTables().get(i));
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - CRC_SIZE);
        s.putInt(bytes.length - CRC_SIZE, (int) crc.getValue());
        return bytes;
    }

    /** Atomically replaces the manifest of {@code dir} with {@code state}; durable on return. */
    public static void write(Path dir, ManifestState state) throws IOException {
        write(FileIo.DISK, dir, state);
    }

    /**
     * {@link #write(Path, ManifestState)} through {@code io}. On failure before the rename the temporary
     * file is deleted and {@code MANIFEST} is unchanged; on a failed directory fsync after it, the new
     * manifest is in place but may not survive a crash ({@link ManifestNotDurableException}).
     *
     * @throws ManifestNotDurableException if only the final directory fsync failed
     * @throws IOException                 if writing, syncing or renaming the temporary file failed
     */
    public static void write(FileIo io, Path dir, ManifestState state) throws IOException {
        Path tmp = FileNames.manifestTmp(dir);
        try (FileChannel ch = io.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            byte[] bytes = encode(state);
            // direct, as the engine's other file writes are: one ByteBuffer class in the JDK's write path
            ByteBuffer buf = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            try {
                io.delete(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        try {
            io.rename(tmp, FileNames.manifest(dir));
        } catch (IOException e) {
            try {
                io.delete(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        try {
            io.syncDirectory(dir);
        } catch (IOException e) {
            throw new ManifestNotDurableException(FileNames.manifest(dir), e);
        }
    }
}
