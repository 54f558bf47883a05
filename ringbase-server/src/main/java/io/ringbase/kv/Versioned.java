package io.ringbase.kv;

/**
 * A live value and its version: what a read answers, so that the API can give the version to the client
 * as an {@code ETag} and take it back in {@code If-Match}.
 *
 * @param value   the value bytes (not copied; the caller must not change them)
 * @param version the 64-bit hybrid logical clock version the value was written with
 *                ({@link io.ringbase.clock.HybridLogicalClock})
 */
public record Versioned(byte[] value, long version) {}
