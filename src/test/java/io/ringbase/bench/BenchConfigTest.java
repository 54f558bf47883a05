package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchConfigTest {

    private static BenchConfig config(Workload w, KeyChoice keys, int ack, int from) {
        return new BenchConfig(w, keys, 0.5, 100, 1000, 64, ack, from, 1, null, 10, 0.8, 60, 5, 5000, 10, 12,
                Path.of("bench-reports"), null, null, 100, 100, 4, true, 0, 1, List.of("--workload", w.label()), List.of());
    }

    @Test
    void sequentialKeysAreRefusedForLoadRunsWithTheReason() {
        assertThatThrownBy(() -> config(Workload.GET, KeyChoice.SEQUENTIAL, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oha draws its URLs at random");
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
}
