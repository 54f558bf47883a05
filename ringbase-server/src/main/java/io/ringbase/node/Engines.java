package io.ringbase.node;

import io.ringbase.storage.EngineKind;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.rocksdb.RocksDbEngine;
import io.ringbase.storage.rocksdb.RocksDbOptions;
import java.io.IOException;

/** Opens the storage engine a node was asked for ({@code --engine}), after checking its directory is that engine's. */
public final class Engines {

    private Engines() {}

    /**
     * Opens {@code kind} on {@code options.dataDir()}; RocksDB takes the options both engines share
     * ({@link RocksDbOptions#from}).
     *
     * @throws io.ringbase.storage.WrongEngineException if the directory holds the other engine's files
     * @throws IOException as the engine's {@code open}
     */
    public static ManagedEngine open(EngineKind kind, LsmOptions options) throws IOException {
        return switch (kind) {
            case LSM -> {
                EngineKind.LSM.checkDirectory(options.dataDir());
                yield LsmEngine.open(options);
            }
            case ROCKSDB -> RocksDbEngine.open(RocksDbOptions.from(options));
        };
    }
}
