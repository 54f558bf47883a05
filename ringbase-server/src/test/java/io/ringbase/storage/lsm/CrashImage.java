package io.ringbase.storage.lsm;

import io.ringbase.storage.DataDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What a SIGKILL would leave on disk, for engine tests that recover from it. */
final class CrashImage {

    private CrashImage() {}

    /**
     * Copies the files of the running {@code engine} in {@code dir} to {@code to}, with its state frozen
     * (no flush or compaction installs or deletes a file meanwhile), leaving out the directory lock.
     *
     * @return {@code to}
     */
    static Path copy(LsmEngine engine, Path dir, Path to) throws IOException {
        Files.createDirectories(to);
        engine.whileStateFrozen(() -> {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    if (!p.getFileName().toString().equals(DataDirectory.LOCK)) {
                        try {
                            Files.copy(p, to.resolve(p.getFileName()));
                        } catch (java.nio.file.NoSuchFileException gone) {
                            // deleted by a finishing flush or compaction: not live
                        }
                    }
                }
            }
        });
        return to;
    }
}
