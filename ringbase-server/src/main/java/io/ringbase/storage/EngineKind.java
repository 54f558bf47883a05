package io.ringbase.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Which storage engine keeps a node's data directory ({@code --engine}): ours ({@link #LSM}) or RocksDB
 * ({@link #ROCKSDB}), and how a directory says which one wrote it (docs/format.md, "Engine marker").
 *
 * <p>A RocksDB directory holds a marker file {@value #MARKER} whose content is the engine's name and a
 * newline ({@code rocksdb\n}). An LSM engine directory has no marker (it predates them) and is
 * recognized by its manifest, {@value #LSM_MANIFEST}. A directory with neither is new: any engine may take it.
 */
public enum EngineKind {
    /** Ringbase's own engine, {@code io.ringbase.storage.lsm.LsmEngine}; the default. */
    LSM("lsm"),
    /** RocksDB through rocksdbjni, {@code io.ringbase.storage.rocksdb.RocksDbEngine}. */
    ROCKSDB("rocksdb");

    /** Name of the marker file in the data directory. Do not change: existing directories carry it. */
    public static final String MARKER = "ENGINE";
    /**
     * Name of the LSM engine's manifest, which marks a directory of that engine (it writes no marker).
     * Do not change: existing directories carry it. The engine names its manifest by this constant.
     */
    public static final String LSM_MANIFEST = "MANIFEST";

    private final String flagName;

    EngineKind(String flagName) {
        this.flagName = flagName;
    }

    /** A class of the library the {@link #ROCKSDB} engine needs (rocksdbjni), looked up without loading it. */
    private static final String ROCKSDB_CLASS = "org.rocksdb.RocksDB";

    /**
     * Whether this engine's library is on the class path: always for {@link #LSM}; for {@link #ROCKSDB},
     * whether rocksdbjni is (the release tarball leaves it out: it is the separate
     * {@code ringbase-<version>-rocksdb-engine.tar.gz}). Loads nothing of the library.
     */
    public boolean libraryPresent() {
        if (this == LSM) {
            return true;
        }
        try {
            Class.forName(ROCKSDB_CLASS, false, EngineKind.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The name used by {@code --engine} and in the marker file. */
    public String flagName() {
        return flagName;
    }

    /**
     * The engine named {@code name} ({@code lsm} or {@code rocksdb}, any case).
     *
     * @throws IllegalArgumentException for any other name
     */
    public static EngineKind parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (EngineKind k : values()) {
            if (k.flagName.equals(n)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown engine '" + name + "': lsm or rocksdb");
    }

    /**
     * Which engine's files {@code dir} holds: the marker's engine, else {@link #LSM} if it has a
     * {@code MANIFEST}, else empty (a new or empty directory).
     *
     * @throws IOException if the marker cannot be read or names no known engine
     */
    public static Optional<EngineKind> detect(Path dir) throws IOException {
        Path marker = dir.resolve(MARKER);
        if (Files.exists(marker)) {
            String content = Files.readString(marker, StandardCharsets.UTF_8).trim();
            try {
                return Optional.of(parse(content));
            } catch (IllegalArgumentException e) {
                throw new IOException("its " + MARKER + " file names an unknown engine '" + content + "'");
            }
        }
        if (Files.exists(dir.resolve(LSM_MANIFEST))) {
            return Optional.of(LSM);
        }
        return Optional.empty();
    }

    /**
     * Refuses to open {@code dir} with this engine if another engine's files are there.
     *
     * @throws WrongEngineException if {@link #detect} names another engine
     */
    public void checkDirectory(Path dir) throws IOException {
        Optional<EngineKind> found = detect(dir);
        if (found.isPresent() && found.get() != this) {
            throw new WrongEngineException(dir, found.get(), this);
        }
    }

    /**
     * Writes the marker naming this engine into {@code dir} (created if absent) unless it is there:
     * to a temporary file, fsynced, renamed into place, then the directory fsynced.
     */
    public void writeMarker(Path dir) throws IOException {
        Path marker = dir.resolve(MARKER);
        if (Files.exists(marker)) {
            return;
        }
        DataDirectory.writeAtomically(marker, (flagName + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
