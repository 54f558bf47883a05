package io.ringbase.cli;

import io.ringbase.node.BuildInfo;
import io.ringbase.storage.EngineKind;

/** Parses {@code --engine} of {@code serve} and {@code cluster}, and refuses an engine whose library is not installed. */
final class EngineFlag {

    private EngineFlag() {}

    /**
     * The engine {@code name} asks for.
     *
     * @throws IllegalArgumentException with one line for the user: an unknown name, or {@code rocksdb}
     *                                  on an installation without the RocksDB engine's library, saying how
     *                                  to add it
     */
    static EngineKind parse(String name) {
        EngineKind kind = EngineKind.parse(name);
        if (!kind.libraryPresent()) {
            throw new IllegalArgumentException("--engine " + kind.flagName()
                    + ": the RocksDB engine is not installed (its 29 MB library, rocksdbjni, is not in the default"
                    + " tarball); unpack ringbase-" + BuildInfo.version() + "-rocksdb-engine.tar.gz over this"
                    + " installation (docs/operations.md, \"The RocksDB engine\")");
        }
        return kind;
    }
}
