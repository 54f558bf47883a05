package io.ringbase.client;

import java.util.Objects;

/**
 * A value read with the content type its PUT stored ({@link RingbaseClient#getWithType}).
 *
 * @param value       the value's bytes
 * @param contentType the {@code Content-Type} the node served: the one stored with the value, as it was
 *                    sent, or {@value #DEFAULT_TYPE} for a value stored without one
 */
public record StoredValue(byte[] value, String contentType) {

    /** The type of a value stored without one. */
    public static final String DEFAULT_TYPE = "application/octet-stream";

    public StoredValue {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(contentType, "contentType");
    }
}
