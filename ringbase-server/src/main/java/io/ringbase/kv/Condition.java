package io.ringbase.kv;

import io.ringbase.storage.Entry;
import org.jspecify.annotations.Nullable;

/**
 * The precondition of a conditional write (compare-and-set): HTTP's {@code If-Match} and
 * {@code If-None-Match: *} (RFC 9110 §13.1). Conditions compare against the key's <em>live</em> entry
 * only: a missing key, a tombstone and an expired value are all "no current value", which no version
 * matches.
 */
public sealed interface Condition {

    /**
     * Whether the condition holds against {@code current}, the newest entry stored for the key
     * (tombstones and expired entries included), or {@code null} if none, at {@code nowMs} (Unix ms).
     */
    boolean holds(@Nullable Entry current, long nowMs);

    /** {@code If-Match: "<version>"}: the key's live value has exactly this version. */
    record IfMatch(long version) implements Condition {
        @Override
        public boolean holds(@Nullable Entry current, long nowMs) {
            return current != null && current.isLive(nowMs) && current.version() == version;
        }
    }

    /** {@code If-Match: *}: the key has a live value, whatever its version. */
    record IfPresent() implements Condition {
        @Override
        public boolean holds(@Nullable Entry current, long nowMs) {
            return current != null && current.isLive(nowMs);
        }
    }

    /** {@code If-None-Match: *}: create only; the key has no live value. */
    record IfAbsent() implements Condition {
        @Override
        public boolean holds(@Nullable Entry current, long nowMs) {
            return current == null || !current.isLive(nowMs);
        }
    }
}
