package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard shipped in the release ({@code src/dist/grafana/ringbase-dashboard.json}) queries only
 * series that a cluster's nodes export: a renamed or removed metric would leave a panel silently empty.
 */
@IntegrationTest
@Timeout(120)
class GrafanaDashboardTest {

    static final Path DASHBOARD = Path.of("src/dist/grafana/ringbase-dashboard.json");
    private static final Pattern METRIC = Pattern.compile("\\b((?:ringbase|jvm|process)_[a-z_]+)\\b");
    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-z_:][a-z0-9_:]*)[{ ]");

    @TempDir
    Path tmp;

    @Test
    void everySeriesTheDashboardQueriesIsExportedByAClusterNode() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        List<String> exprs = new ArrayList<>();
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(ids.add(panel.path("id").asInt()))
                    .as("panel ids are unique")
                    .isTrue();
            for (JsonNode target : panel.path("targets")) {
                exprs.add(target.path("expr").asText());
            }
        }
        Set<String> queried = new TreeSet<>();
        for (String expr : exprs) {
            Matcher m = METRIC.matcher(expr);
            while (m.find()) {
                queried.add(m.group(1));
            }
        }
        assertThat(queried).as("series in %s", exprs).hasSizeGreaterThan(20);

        Set<String> exported = new TreeSet<>();
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            c.awaitAllUp(Duration.ofSeconds(15));
            assertThat(c.put(0, "k", "v").status()).isEqualTo(201);
            assertThat(c.send(0, "GET", "/v0/entity?id=k", null).status()).isEqualTo(200);
            c.node(0).engine().flush(); // the per-tier SSTable gauges have a series once a table exists
            for (int i = 0; i < c.size(); i++) {
                Matcher m = SAMPLE.matcher(c.send(i, "GET", "/metrics", null).body());
                while (m.find()) {
                    exported.add(m.group(1));
                }
            }
        }
        assertThat(exported).as("exported series").containsAll(queried);
    }
}
