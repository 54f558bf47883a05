package io.ringbase.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What this process has mapped, from {@code /proc/self/maps}: for tests of when SSTables are unmapped. */
public final class MappedFiles {

    private MappedFiles() {}

    /**
     * The files at or below {@code path} that are mapped now, each once (a file may show as several address
     * ranges), as the kernel names them: the absolute path, with {@code " (deleted)"} after it once unlinked.
     */
    public static List<String> under(Path path) throws IOException {
        String prefix = path.toAbsolutePath().toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.contains(prefix))
                .map(l -> l.substring(l.indexOf(prefix)))
                .distinct()
                .toList();
    }
}
