package io.ringbase.cluster.streaming;

import io.ringbase.cluster.NodeId;
import io.ringbase.hash.XxHash64;
import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * How far a stream got durably: the key the next page starts at, stored in
 * {@code <data-dir>/cluster/streaming/from-<source index>} (docs/format.md, "Stream cursor") only after every
 * entry before it is durable in the engine. A session resumes from it if it names the same plan (epoch and
 * digest of the plan's encoding), and starts over otherwise.
 *
 * @param epoch      the plan's epoch
 * @param planDigest XXH64 of the plan's {@link StreamPlanCodec} encoding
 * @param next       the start key of the next page; empty at the start; ignored once {@code done}
 * @param entries    entries received before {@code next}, over every run of the plan
 * @param bytes      encoded bytes of those entries
 * @param done       whether the stream reached the end of the source's entries
 */
public record StreamCursor(long epoch, long planDigest, byte[] next, long entries, long bytes, boolean done) {

    /** {@code "RBSC"} as a little-endian u32. Do not change. */
    static final int MAGIC = 0x43534252;
    /** The only version so far. Do not change its meaning. */
    static final byte VERSION = 1;
    /** Bit 0 of the flags byte: {@link #done()}. */
    static final int DONE = 0x01;
    /** Subdirectory of the data directory that holds the cursors. */
    public static final String DIRECTORY = "cluster/streaming";

    // magic, version, flags, epoch, planDigest, entries, bytes, nextLength
    static final int HEADER_SIZE = 4 + 1 + 1 + 8 + 8 + 8 + 8 + 4;
    static final int CRC_SIZE = 4;

    public StreamCursor {
        Objects.requireNonNull(next, "next");
        if (next.length > Entry.MAX_KEY_BYTES + 1) { // a successor is one byte longer than a key
            throw new IllegalArgumentException("cursor key of " + next.length + " bytes is too long");
        }
        if (entries < 0 || bytes < 0) {
            throw new IllegalArgumentException("negative counters " + entries + ", " + bytes);
        }
    }

    /** The cursor at the start of {@code plan}. */
    public static StreamCursor start(StreamPlan plan) {
        return new StreamCursor(plan.epoch(), digest(plan), new byte[0], 0, 0, false);
    }

    /** XXH64 of the plan's encoding: two plans with the same digest stream the same keys. */
    public static long digest(StreamPlan plan) {
        return XxHash64.hash(StreamPlanCodec.encode(plan));
    }

    /** Whether this cursor was stored by a session for {@code plan}. */
    public boolean isFor(StreamPlan plan) {
        return epoch == plan.epoch() && planDigest == digest(plan);
    }

    /** The file of the cursor of a stream from {@code source}: the one place its name is built. */
    public static Path file(Path dataDir, NodeId source) {
        return dataDir.resolve(DIRECTORY).resolve("from-" + source.index());
    }

    /**
     * Deletes every cursor under {@code dataDir}'s {@value #DIRECTORY}: once the change they were for has
     * finished, none will be resumed (a later change has another plan). A failure is left to the next
     * change, which replaces them.
     *
     * @return how many were deleted
     * @throws IOException if the directory cannot be listed or a file cannot be deleted
     */
    public static int deleteAll(Path dataDir) throws IOException {
        Path dir = dataDir.resolve(DIRECTORY);
        if (!java.nio.file.Files.isDirectory(dir)) {
            return 0;
        }
        int deleted = 0;
        try (var files = java.nio.file.Files.list(dir)) {
            for (Path f : files.toList()) {
                if (f.getFileName().toString().startsWith("from-") && java.nio.file.Files.deleteIfExists(f)) {
                    deleted++;
                }
            }
        }
        return deleted;
    }

    /** Stores this cursor at {@code file} atomically (old content or new after a crash), fsynced. */
    public void write(Path file) throws IOException {
        DataDirectory.writeAtomically(file, encode());
    }

    /**
     * The cursor stored at {@code file}, or {@code null} if there is none.
     *
     * @throws IllegalArgumentException if the file is damaged (checksum, magic, version, lengths)
     * @throws IOException              if it cannot be read
     */
    public static @Nullable StreamCursor read(Path file) throws IOException {
        try {
            return decode(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE + next.length + CRC_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC)
                .put(VERSION)
                .put((byte) (done ? DONE : 0))
                .putLong(epoch)
                .putLong(planDigest)
                .putLong(entries)
                .putLong(bytes)
                .putInt(next.length)
                .put(next);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    static StreamCursor decode(byte[] bytes) {
        if (bytes.length < HEADER_SIZE + CRC_SIZE) {
            throw new IllegalArgumentException("stream cursor of " + bytes.length + " bytes is too short");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - CRC_SIZE);
        if (b.getInt(bytes.length - CRC_SIZE) != (int) crc.getValue()) {
            throw new IllegalArgumentException("stream cursor checksum mismatch");
        }
        b.limit(bytes.length - CRC_SIZE);
        try {
            if (b.getInt() != MAGIC) {
                throw new IllegalArgumentException("not a stream cursor (bad magic)");
            }
            byte version = b.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown stream cursor version " + version);
            }
            int flags = Byte.toUnsignedInt(b.get());
            if ((flags & ~DONE) != 0) {
                throw new IllegalArgumentException("unknown stream cursor flags 0x" + Integer.toHexString(flags));
            }
            long epoch = b.getLong();
            long digest = b.getLong();
            long entries = b.getLong();
            long total = b.getLong();
            int length = b.getInt();
            if (length != b.remaining()) {
                throw new IllegalArgumentException("stream cursor key length " + Integer.toUnsignedString(length)
                        + " does not match the " + b.remaining() + " bytes left");
            }
            byte[] next = new byte[length];
            b.get(next);
            return new StreamCursor(epoch, digest, next, entries, total, (flags & DONE) != 0);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("stream cursor is truncated", e);
        }
    }
}
