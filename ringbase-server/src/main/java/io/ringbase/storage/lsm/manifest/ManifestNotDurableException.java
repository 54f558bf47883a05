package io.ringbase.storage.lsm.manifest;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A manifest was renamed into place but the fsync of its directory failed: the new manifest is the one
 * in force now, but a crash may bring back the previous one. Whoever published it must keep every file
 * either manifest names until a later manifest is durable.
 */
public final class ManifestNotDurableException extends IOException {

    /**
     * @param manifest the manifest file
     * @param cause    the failed directory fsync
     */
    public ManifestNotDurableException(Path manifest, IOException cause) {
        super(manifest + " was replaced but its directory fsync failed: " + cause.getMessage(), cause);
    }
}
