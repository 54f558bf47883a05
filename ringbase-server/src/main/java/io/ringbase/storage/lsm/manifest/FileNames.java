package io.ringbase.storage.lsm.manifest;

import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.EngineKind;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every file name of the LSM engine's data directory, built and parsed here and nowhere else
 * ({@code docs/format.md}, section 1); the names every engine shares (the lock, snapshots) are
 * {@link DataDirectory}'s. File numbers come from the manifest's single counter.
 */
public final class FileNames {

    /** The manifest; also what marks a directory as this engine's ({@link EngineKind#LSM_MANIFEST}). */
    public static final String MANIFEST = EngineKind.LSM_MANIFEST;

    public static final String MANIFEST_TMP = "MANIFEST.tmp";

    /** What a file in the data directory is. */
    public enum Kind {
        WAL,
        SSTABLE,
        TEMPORARY,
        MANIFEST,
        LOCK
    }

    /** A parsed name: its kind and, for WAL segments and SSTables, its file number (else -1). */
    public record Parsed(Kind kind, long number) {}

    private static final Pattern WAL = Pattern.compile("wal-(\\d{20})\\.log");
    private static final Pattern SST = Pattern.compile("sst-(\\d{20})\\.sst");
    private static final Pattern TMP = Pattern.compile("(sst-\\d{20}\\.sst\\.tmp.*|MANIFEST\\.tmp)");

    private FileNames() {}

    public static Path wal(Path dir, long number) {
        return dir.resolve(String.format("wal-%020d.log", number));
    }

    public static Path sstable(Path dir, long number) {
        return dir.resolve(String.format("sst-%020d.sst", number));
    }

    /** Subdirectory of the data directory where damaged SSTables are moved aside. */
    public static final String QUARANTINE = "quarantine";

    /** Where a damaged SSTable is moved: {@code <dir>/quarantine/sst-N.sst}. */
    public static Path quarantined(Path dir, long number) {
        return sstable(dir.resolve(QUARANTINE), number);
    }

    /** Where an SSTable is written before its rename to {@link #sstable}. */
    public static Path sstableTmp(Path dir, long number) {
        return dir.resolve(String.format("sst-%020d.sst.tmp", number));
    }

    public static Path manifest(Path dir) {
        return dir.resolve(MANIFEST);
    }

    public static Path manifestTmp(Path dir) {
        return dir.resolve(MANIFEST_TMP);
    }

    /** Parses a file name of the data directory; empty for names that are not ours. */
    public static Optional<Parsed> parse(String name) {
        Matcher m = WAL.matcher(name);
        if (m.matches()) {
            return Optional.of(new Parsed(Kind.WAL, Long.parseLong(m.group(1))));
        }
        m = SST.matcher(name);
        if (m.matches()) {
            return Optional.of(new Parsed(Kind.SSTABLE, Long.parseLong(m.group(1))));
        }
        if (TMP.matcher(name).matches()) {
            return Optional.of(new Parsed(Kind.TEMPORARY, -1));
        }
        if (name.equals(MANIFEST)) {
            return Optional.of(new Parsed(Kind.MANIFEST, -1));
        }
        if (name.equals(DataDirectory.LOCK)) {
            return Optional.of(new Parsed(Kind.LOCK, -1));
        }
        return Optional.empty();
    }
}
