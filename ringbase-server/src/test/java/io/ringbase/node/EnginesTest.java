package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.EngineKind;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.WrongEngineException;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.rocksdb.RocksDbEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnginesTest {

    @TempDir
    Path tmp;

    @Test
    void rocksdbRefusesADirectoryOfOurEngineAndLeavesItAlone() throws Exception {
        Path dir = tmp.resolve("d");
        try (ManagedEngine lsm = Engines.open(EngineKind.LSM, LsmOptions.defaults(dir))) {
            lsm.apply(Entry.value(Keys.utf8("k"), 1, Keys.utf8("v")));
        }
        assertThatThrownBy(() -> Engines.open(EngineKind.ROCKSDB, LsmOptions.defaults(dir)))
                .isInstanceOf(WrongEngineException.class)
                .hasMessageStartingWith("it holds the files of the lsm engine, not rocksdb: start with --engine lsm");
        assertThat(dir.resolve(EngineKind.MARKER)).doesNotExist();
        assertThat(dir.resolve(RocksDbEngine.ROCKSDB_DIR)).doesNotExist();
        try (ManagedEngine lsm = Engines.open(EngineKind.LSM, LsmOptions.defaults(dir))) {
            assertThat(lsm.get(Keys.utf8("k")).value()).isEqualTo(Keys.utf8("v"));
        }
    }

    @Test
    void ourEngineRefusesARocksdbDirectory() throws Exception {
        Path dir = tmp.resolve("d");
        try (ManagedEngine rocks = Engines.open(EngineKind.ROCKSDB, LsmOptions.defaults(dir))) {
            rocks.apply(Entry.value(Keys.utf8("k"), 1, Keys.utf8("v")));
        }
        assertThat(Files.readString(dir.resolve(EngineKind.MARKER), StandardCharsets.UTF_8))
                .isEqualTo("rocksdb\n");
        assertThatThrownBy(() -> Engines.open(EngineKind.LSM, LsmOptions.defaults(dir)))
                .isInstanceOf(WrongEngineException.class)
                .hasMessageStartingWith(
                        "it holds the files of the rocksdb engine, not lsm: start with --engine rocksdb");
        assertThat(dir.resolve("MANIFEST")).doesNotExist();
    }

    @Test
    void anUnknownMarkerIsRefused() throws Exception {
        Path dir = tmp.resolve("d");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(EngineKind.MARKER), "leveldb\n");
        assertThatThrownBy(() -> Engines.open(EngineKind.ROCKSDB, LsmOptions.defaults(dir)))
                .hasMessageContaining("names an unknown engine 'leveldb'");
        assertThatThrownBy(() -> Engines.open(EngineKind.LSM, LsmOptions.defaults(dir)))
                .hasMessageContaining("names an unknown engine 'leveldb'");
    }

    @Test
    void engineNamesParseInAnyCaseAndOthersAreRefused() {
        assertThat(EngineKind.parse("RocksDB")).isEqualTo(EngineKind.ROCKSDB);
        assertThat(EngineKind.parse("lsm")).isEqualTo(EngineKind.LSM);
        assertThatThrownBy(() -> EngineKind.parse("wiredtiger")).hasMessageContaining("lsm or rocksdb");
    }
}
