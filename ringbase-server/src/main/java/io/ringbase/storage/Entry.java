package io.ringbase.storage;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * One versioned cell of the store: a key with either a value or a tombstone, a 64-bit version and an
 * optional expiry time. Entries are the unit that the WAL, memtables, SSTables and (later) replication
 * carry unchanged.
 *
 * <p>Ordering of versions ("newest wins") is defined in exactly one place, {@link #compareNewness}: the
 * higher {@code version} wins; at equal versions a tombstone wins over a value, then the value whose
 * bytes compare greater (unsigned, lexicographic), then the later expiry. The rule is deterministic so
 * that every replica resolves the same conflict the same way (Cassandra resolves equal timestamps the
 * same way: deletes first, then the greater value).
 *
 * <p>The arrays are not copied; callers must not mutate them after construction.
 *
 * @param key         the key bytes (UTF-8 of the client's key), at most {@link #MAX_KEY_BYTES}
 * @param version     the version timestamp (a hybrid logical clock reading, see
 *                    {@link io.ringbase.clock.HybridLogicalClock})
 * @param expiresAtMs absolute expiry in Unix epoch milliseconds, or {@link #NO_EXPIRY}
 * @param value       the value bytes, or {@code null} for a tombstone; when {@code typed}, the stored value:
 *                    a {@link ContentType} prefix, then the client's value
 * @param typed       whether {@code value} starts with a {@link ContentType} prefix (never for a tombstone)
 */
public record Entry(byte[] key, long version, long expiresAtMs, byte[] value, boolean typed) {

    /** {@code expiresAtMs} of an entry that never expires. */
    public static final long NO_EXPIRY = 0L;

    /** Largest key accepted by the store, in bytes (64 KiB). */
    public static final int MAX_KEY_BYTES = 64 * 1024;

    public Entry {
        Objects.requireNonNull(key, "key");
        if (key.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key of " + key.length + " bytes exceeds " + MAX_KEY_BYTES);
        }
        if (expiresAtMs < 0) {
            throw new IllegalArgumentException("negative expiresAtMs " + expiresAtMs);
        }
        if (typed) {
            if (value == null) {
                throw new IllegalArgumentException("a tombstone cannot be typed");
            }
            ContentType.prefixLength(value); // throws if the prefix is not valid
        }
    }

    /** An untyped entry: a value (or a tombstone if {@code value} is {@code null}) with no content type. */
    public Entry(byte[] key, long version, long expiresAtMs, byte[] value) {
        this(key, version, expiresAtMs, value, false);
    }

    /** This entry with {@code newVersion} instead of its version: the same key, value, expiry and content type. */
    public Entry withVersion(long newVersion) {
        return new Entry(key, newVersion, expiresAtMs, value, typed);
    }

    /** The content type stored with the value, or {@code null} if it has none (untyped, or a tombstone). */
    public String contentType() {
        return typed ? ContentType.typeOf(value) : null;
    }

    /** The value without its content type prefix ({@link #value()} itself when untyped), or {@code null}. */
    public byte[] bareValue() {
        return typed ? ContentType.bare(value) : value;
    }

    /** A live value that never expires. */
    public static Entry value(byte[] key, long version, byte[] value) {
        return new Entry(key, version, NO_EXPIRY, Objects.requireNonNull(value, "value"));
    }

    /**
     * A live entry of a value stored with a content type: the {@link ContentType} prefix of
     * {@code contentType}, then a copy of {@code value}'s bytes, flagged typed.
     *
     * @throws IllegalArgumentException if {@code contentType} is not valid ({@link ContentType#invalidReason})
     */
    public static Entry typed(byte[] key, long version, long expiresAtMs, String contentType, MemorySegment value) {
        return new Entry(key, version, expiresAtMs, ContentType.prefixed(contentType, value), true);
    }

    /** A tombstone: the key was deleted at {@code version}. */
    public static Entry tombstone(byte[] key, long version) {
        return new Entry(key, version, NO_EXPIRY, null);
    }

    public boolean isTombstone() {
        return value == null;
    }

    public boolean hasExpiry() {
        return expiresAtMs != NO_EXPIRY;
    }

    /** True if the entry has an expiry time at or before {@code nowMs} (Unix epoch ms). */
    public boolean isExpired(long nowMs) {
        return expiresAtMs != NO_EXPIRY && expiresAtMs <= nowMs;
    }

    /** True if a read at {@code nowMs} should see this entry's value: not a tombstone, not expired. */
    public boolean isLive(long nowMs) {
        return value != null && !isExpired(nowMs);
    }

    /**
     * Compares two versions of the same key: positive if {@code a} is newer than {@code b}, negative if
     * older, zero only if they are identical in version, kind, value and expiry.
     */
    public static int compareNewness(Entry a, Entry b) {
        int c = Long.compare(a.version, b.version);
        if (c != 0) {
            return c;
        }
        if (a.value == null || b.value == null) {
            if (a.value == null && b.value == null) {
                return Long.compare(a.expiresAtMs, b.expiresAtMs);
            }
            return a.value == null ? 1 : -1; // tombstone wins a tie
        }
        c = Arrays.compareUnsigned(a.value, b.value);
        if (c != 0) {
            return c;
        }
        if (a.typed != b.typed) {
            return a.typed ? 1 : -1; // the same bytes typed and untyped: the typed one wins, as encoded
        }
        return Long.compare(a.expiresAtMs, b.expiresAtMs);
    }

    /** The newer of two versions of the same key (either may be null). */
    public static Entry newer(Entry a, Entry b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return compareNewness(a, b) >= 0 ? a : b;
    }

    /** Approximate heap footprint in bytes, used for memtable size accounting. */
    public long heapSize() {
        // record header + fields (~40), key array, value array
        return 40 + arrayHeapSize(key.length) + (value == null ? 0 : arrayHeapSize(value.length));
    }

    /**
     * Heap bytes a {@code byte[]} of {@code n} elements occupies: a 16-byte header plus the elements,
     * except that G1 stores an array of at least half a heap region as a "humongous" object in whole
     * regions of its own, so it costs its size rounded up to whole regions (a 1 MiB value in a 128 MiB
     * heap, whose regions are 1 MiB, takes 2 MiB). Without this a memtable of 1 MiB values held twice
     * the heap its limit allowed, and a 128 MiB node ran out of heap under a stream of them.
     */
    static long arrayHeapSize(int n) {
        long bytes = 16L + n;
        long region = HeapRegions.G1_REGION_BYTES;
        if (region > 0 && bytes >= region / 2) {
            return (bytes + region - 1) / region * region;
        }
        return bytes;
    }

    /** The G1 region size of this JVM, or 0 when G1 is not the collector (or it cannot be read). */
    private static final class HeapRegions {
        static final long G1_REGION_BYTES = read();

        private static long read() {
            try {
                var vm = java.lang.management.ManagementFactory.getPlatformMXBean(
                        com.sun.management.HotSpotDiagnosticMXBean.class);
                if (!"true".equals(vm.getVMOption("UseG1GC").getValue())) {
                    return 0;
                }
                return Long.parseLong(vm.getVMOption("G1HeapRegionSize").getValue());
            } catch (RuntimeException | LinkageError e) {
                return 0;
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e
                && version == e.version
                && expiresAtMs == e.expiresAtMs
                && typed == e.typed
                && Arrays.equals(key, e.key)
                && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Long.hashCode(version);
    }

    @Override
    public String toString() {
        return "Entry[key=" + Keys.toDisplay(key) + ", version=" + version
                + (hasExpiry() ? ", expiresAtMs=" + expiresAtMs : "")
                + (value == null ? ", tombstone" : ", value=" + value.length + " bytes")
                + (typed ? ", typed" : "") + "]";
    }
}
