package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchRunLogLinksTest {

    @Test
    void linksEachNodeLogByItsNameInTheReportDirectory() {
        List<Path> logs = List.of(
                Path.of("/reports/2026-11-27-064114-put/node1.log"),
                Path.of("/reports/2026-11-27-064114-put/node2.log"));
        assertThat(BenchRun.logLinks(logs)).isEqualTo("([node1.log](node1.log), [node2.log](node2.log))");
    }
}
