package io.ringbase.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * A {@code @TempDir(factory = MemoryTempDir.class)} in {@code /dev/shm} (a tmpfs) when it has room, else
 * where JUnit puts one. For storage tests that fsync thousands of times but test no power loss (their
 * crash images are copies of the files, restarts are closes): on a tmpfs an fsync costs nothing, on a disk
 * that other builds share one can take tens of milliseconds, which made a 8 s test take 50 s.
 */
public final class MemoryTempDir implements TempDirFactory {

    private static final Path SHM = Path.of("/dev/shm");
    /** Room the tests may fill, with some to spare for the machine. */
    private static final long MIN_FREE_BYTES = 1L << 30;

    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws Exception {
        if (roomy()) {
            return Files.createTempDirectory(SHM, "junit-");
        }
        return TempDirFactory.Standard.INSTANCE.createTempDirectory(element, context);
    }

    private static boolean roomy() {
        try {
            return Files.isDirectory(SHM)
                    && Files.isWritable(SHM)
                    && Files.getFileStore(SHM).getUsableSpace() >= MIN_FREE_BYTES;
        } catch (IOException | SecurityException e) {
            return false;
        }
    }
}
