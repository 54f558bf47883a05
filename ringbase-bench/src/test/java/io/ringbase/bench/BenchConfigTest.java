package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchConfigTest {

    private static BenchConfig config(Workload w, KeyChoice keys, int ack, int from) {
        return new BenchConfig(
                w,
                keys,
                0.5,
                100,
                1000,
                64,
                ack,
                from,
                1,
                null,
                10,
                0.8,
                60,
                5,
                5000,
                10,
                12,
                Path.of("bench-reports"),
                null,
                null,
                100,
                100,
                4,
                true,
                0,
                1,
                List.of("--workload", w.label()),
                List.of(),
                LoadGenerator.Kind.RATEGEN);
    }

    @Test
    void sequentialKeysAreRefusedForLoadRunsWithTheReason() {
        assertThatThrownBy(() -> config(Workload.GET, KeyChoice.SEQUENTIAL, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the load generator draws its URLs at random");
    }

    @Test
    void ackMustNotExceedFrom() {
        assertThatThrownBy(() -> config(Workload.PUT, KeyChoice.UNIFORM, 3, 2)).hasMessageContaining("--ack");
        assertThat(config(Workload.PUT, KeyChoice.UNIFORM, 2, 3).replicaQuery()).isEqualTo("&ack=2&from=3");
        assertThat(config(Workload.PUT, KeyChoice.UNIFORM, 0, 0).replicaQuery()).isEmpty();
    }

    @Test
    void runNameNamesTheReportDirectory() {
        assertThat(config(Workload.RANGE, KeyChoice.ZIPFIAN, 0, 0).runName()).isEqualTo("range");
    }

    private static BenchConfig parsed(String... args) {
        BenchCommand command = new BenchCommand();
        new picocli.CommandLine(command).parseArgs(args);
        return command.validate();
    }

    @Test
    void aRunningNodeIsNotPrefilledUnlessAsked() {
        assertThat(parsed("--workload", "get").prefill()).isEqualTo(BenchConfig.DEFAULT_KEYS);
        assertThat(parsed("--workload", "get", "--url", "http://127.0.0.1:8080").prefill())
                .isZero();
        assertThat(parsed("--workload", "get", "--url", "http://127.0.0.1:8080", "--prefill", "5000")
                        .prefill())
                .isEqualTo(5000);
    }

    @Test
    void withoutAPrefillReadsDrawFromTheDefaultKeys(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        BenchConfig c = parsed("--workload", "get", "--url", "http://127.0.0.1:8080", "--prefill", "0");
        assertThat(c.readKeys()).isEqualTo(BenchConfig.DEFAULT_KEYS);
        Path file = dir.resolve("urls.txt");
        KeySpace.writeUrlFile(file, "http://127.0.0.1:8080", c.readKeys(), c.keys(), false, "", 1); // threw with 0 keys
        assertThat(java.nio.file.Files.readAllLines(file))
                .isNotEmpty()
                .allMatch(u -> u.startsWith("http://127.0.0.1:8080/v0/entity?id="));
        assertThat(parsed("--workload", "get", "--prefill", "300").readKeys()).isEqualTo(300);
    }

    @Test
    void serveArgsAreForLocalNodesOnly() {
        assertThat(parsed("--serve-arg=--no-metrics").serveArgs()).containsExactly("--no-metrics");
        assertThatThrownBy(() -> parsed("--url", "http://127.0.0.1:8080", "--serve-arg=--no-metrics"))
                .hasMessageContaining("--serve-arg");
    }
}
