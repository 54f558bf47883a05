package io.ringbase.storage;

import java.io.IOException;
import java.nio.file.Path;

/** A data directory holds another engine's files than the one asked for ({@link EngineKind#checkDirectory}). */
public final class WrongEngineException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * @param dir   the data directory
     * @param found the engine whose files are there
     * @param asked the engine that was to open it
     */
    public WrongEngineException(Path dir, EngineKind found, EngineKind asked) {
        super("it holds the files of the " + found.flagName() + " engine, not " + asked.flagName()
                + ": start with --engine " + found.flagName() + " or use another --data-dir (" + dir + ")");
    }
}
