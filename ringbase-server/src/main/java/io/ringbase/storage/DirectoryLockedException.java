package io.ringbase.storage;

import java.io.IOException;
import java.nio.file.Path;

/** The data directory's {@code LOCK} is held by another process (another node on the same directory). */
public final class DirectoryLockedException extends IOException {

    private final Path dir;

    public DirectoryLockedException(Path dir) {
        super("data directory " + dir.toAbsolutePath() + " is in use by another Ringbase process");
        this.dir = dir;
    }

    /** The directory, as given. */
    public Path dir() {
        return dir;
    }
}
