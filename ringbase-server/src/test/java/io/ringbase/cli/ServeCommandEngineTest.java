package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.EngineKind;
import io.ringbase.storage.WrongEngineException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --engine} of {@code serve} and {@code cluster}, and the one line a wrong engine's start prints. */
class ServeCommandEngineTest {

    @Test
    void ourEngineIsTheDefaultAndRocksdbCanBeChosen() {
        assertThat(ServeCommandClockTest.parse("--port", "0").engine()).isEqualTo(EngineKind.LSM);
        assertThat(ServeCommandClockTest.parse("--port", "0", "--engine", "rocksdb")
                        .engine())
                .isEqualTo(EngineKind.ROCKSDB);
    }

    @Test
    void anUnknownEngineIsAUsageError() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--engine", "leveldb"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("lsm or rocksdb");
    }

    @Test
    void clusterPassesTheEngineToEveryNode() {
        ClusterCommand cluster = new ClusterCommand();
        new CommandLine(cluster).parseArgs("--engine", "rocksdb", "--nodes", "2");
        assertThat(cluster.validate()).extracting(c -> c.engine()).containsOnly(EngineKind.ROCKSDB);
    }

    @Test
    void startingOnTheOtherEnginesDirectoryIsOneLineNamingTheFlag() {
        StartupFailure f = StartupFailure.of(
                new WrongEngineException(Path.of("/data"), EngineKind.LSM, EngineKind.ROCKSDB), "/data");
        assertThat(f.exitCode()).isEqualTo(StartupFailure.DATA_DIR);
        assertThat(f.message())
                .isEqualTo("data directory /data cannot be used: it holds the files of the lsm engine,"
                        + " not rocksdb: start with --engine lsm or use another --data-dir (/data)");
        assertThat(f.message()).doesNotContain("\n");
    }
}
