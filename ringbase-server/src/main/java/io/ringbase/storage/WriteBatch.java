package io.ringbase.storage;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Writes gathered to be applied together by {@link StorageEngine#tryApplyAll}: the HTTP event loop
 * stages the PUTs and DELETEs of one pass over its connections here and has them written to the WAL
 * with one {@code write(2)} (the group commit of LevelDB's {@code WriteBatch}, with the batch made by
 * the event loop instead of a writer queue).
 *
 * <p>Holds references, not copies: each value stays where its owner (a request buffer) keeps it until
 * the batch is applied and {@link #clear cleared}. Bounded: at most {@code capacity} entries (the
 * constructor's) and {@link #MAX_BYTES} bytes of log records, each counted as its {@link EntryFormat}
 * encoding plus {@link #RECORD_OVERHEAD_BYTES}; {@link #fits} says whether one more entry may be added.
 *
 * <p>Not thread-safe: owned by one thread (an event loop).
 */
public final class WriteBatch {

    /** Largest log record size of all entries together, bytes (256 KiB): one WAL buffer holds them. */
    public static final long MAX_BYTES = 256 * 1024;
    /**
     * Bytes a log record may add to an entry's {@link EntryFormat} encoding: the framing of a WAL record
     * ({@code 4 + 4 + 1}: crc32c, length, type; docs/format.md section 3). An engine whose records frame
     * an entry in more than this must not count on {@link #MAX_BYTES}.
     */
    public static final int RECORD_OVERHEAD_BYTES = 4 + 4 + 1;

    private final byte[][] keys;
    private final long[] versions;
    private final long[] expiries;
    private final MemorySegment[] values;
    private final long[] scratch;
    private int size;
    private long bytes;
    private int applied;

    /** @param capacity most entries held at once (at least 1) */
    public WriteBatch(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        keys = new byte[capacity][];
        versions = new long[capacity];
        expiries = new long[capacity];
        values = new MemorySegment[capacity];
        scratch = new long[capacity];
    }

    /** Whether an entry of these lengths may be added: room for one more, and the bytes bound holds. */
    public boolean fits(int keyLength, long valueLength) {
        return size < keys.length && bytes + recordBytes(keyLength, valueLength) <= MAX_BYTES;
    }

    /**
     * Adds an entry at the end.
     *
     * @param value the value bytes (read when the batch is applied, not copied now), or {@code null}
     *              for a tombstone
     * @throws IllegalStateException if it does not {@link #fits fit}
     */
    public void add(byte[] key, long version, long expiresAtMs, MemorySegment value) {
        long valueLength = value == null ? 0 : value.byteSize();
        if (!fits(key.length, valueLength)) {
            throw new IllegalStateException("write batch is full: " + size + " entries, " + bytes + " bytes");
        }
        keys[size] = key;
        versions[size] = version;
        expiries[size] = expiresAtMs;
        values[size] = value;
        bytes += recordBytes(key.length, valueLength);
        size++;
    }

    /** What an entry of these lengths counts towards {@link #MAX_BYTES}: its log record's size, bytes. */
    private static long recordBytes(int keyLength, long valueLength) {
        return RECORD_OVERHEAD_BYTES + EntryFormat.encodedSize(keyLength, valueLength);
    }

    /** Forgets every entry (and the references it held). */
    public void clear() {
        Arrays.fill(keys, 0, size, null);
        Arrays.fill(values, 0, size, null);
        size = 0;
        bytes = 0;
        applied = 0;
    }

    public int size() {
        return size;
    }

    /**
     * How many entries, from the first, have been applied ({@link StorageEngine#tryApplyAll}); the
     * others have not been written at all.
     */
    public int applied() {
        return applied;
    }

    /**
     * Engine side: records that entries up to {@code count} (exclusive) are applied.
     *
     * @throws IllegalArgumentException if {@code count} is below {@link #applied()} or above {@link #size()}
     */
    public void markApplied(int count) {
        if (count < applied || count > size) {
            throw new IllegalArgumentException("applied count " + count + " outside " + applied + ".." + size);
        }
        applied = count;
    }

    public byte[] key(int i) {
        check(i);
        return keys[i];
    }

    public long version(int i) {
        check(i);
        return versions[i];
    }

    public long expiresAtMs(int i) {
        check(i);
        return expiries[i];
    }

    /** The value of entry {@code i}, or {@code null} for a tombstone. */
    public MemorySegment value(int i) {
        check(i);
        return values[i];
    }

    /** Value length of entry {@code i}, bytes (0 for a tombstone). */
    public long valueLength(int i) {
        MemorySegment v = value(i);
        return v == null ? 0 : v.byteSize();
    }

    /**
     * Engine side: a slot per entry for the engine applying the batch (the LSM engine keeps each entry's
     * memtable reservation there); meaningless outside {@link StorageEngine#tryApplyAll}.
     */
    public long[] scratch() {
        return scratch;
    }

    private void check(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("entry " + i + " of " + size);
        }
    }
}
