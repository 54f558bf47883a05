package io.ringbase.kv;

import org.jspecify.annotations.Nullable;

/**
 * A live value and its version: what a read answers, so that the API can give the version to the client
 * as an {@code ETag} and take it back in {@code If-Match}.
 *
 * @param value       the bare value bytes, without a content type prefix (not copied; the caller must not
 *                    change them)
 * @param version     the 64-bit hybrid logical clock version the value was written with
 *                    ({@link io.ringbase.clock.HybridLogicalClock})
 * @param contentType the content type stored with the value, or {@code null} if it has none (served as
 *                    {@code application/octet-stream})
 */
public record Versioned(
        byte[] value, long version, @Nullable String contentType) {

    /** An untyped value. */
    public Versioned(byte[] value, long version) {
        this(value, version, null);
    }

    /** The live value of {@code e} as a client sees it: its bare value and content type. */
    public static Versioned of(io.ringbase.storage.Entry e) {
        byte[] bare = e.bareValue();
        if (bare == null) {
            throw new IllegalArgumentException("a tombstone has no value");
        }
        return new Versioned(bare, e.version(), e.contentType());
    }
}
