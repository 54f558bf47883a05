package io.ringbase.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A file of the store does not match its documented format ({@code docs/format.md}): a bad checksum,
 * magic number, version or length. Thrown instead of silently dropping data; the node refuses to start.
 */
public class CorruptionException extends IOException {

    private final Path file;
    private final long offset;

    /**
     * @param file   the damaged file
     * @param offset byte offset in the file where the damage was detected, or -1 if unknown
     * @param what   what was wrong, e.g. "footer checksum mismatch"
     */
    public CorruptionException(Path file, long offset, String what) {
        super(message(file, offset, what));
        this.file = file;
        this.offset = offset;
    }

    public CorruptionException(Path file, long offset, String what, Throwable cause) {
        super(message(file, offset, what), cause);
        this.file = file;
        this.offset = offset;
    }

    private static String message(Path file, long offset, String what) {
        return file + (offset >= 0 ? " at byte " + offset : "") + ": " + what;
    }

    public Path file() {
        return file;
    }

    public long offset() {
        return offset;
    }
}
