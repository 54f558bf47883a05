package io.ringbase.cluster.metadata;

import java.io.IOException;

/**
 * Bytes that are not a valid record of docs/metadata-format.md: truncated, another record's magic, an
 * unknown version or kind, a checksum mismatch, or a body that does not decode. The message names what was
 * wrong.
 */
public final class MetadataFormatException extends IOException {

    public MetadataFormatException(String message) {
        super(message);
    }

    public MetadataFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
