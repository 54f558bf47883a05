package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.cluster.elastic.ElasticCluster;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NeedsCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page of an elastic cluster in headless Chromium: a node that joined is listed with the founding
 * nodes, with its finished join in the streaming column. Screenshot: {@code target/status-page-elastic.png}.
 */
@IntegrationTest
@NeedsCommands("chromium|chromium-browser")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StatusPageElasticBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    @SuppressWarnings("unchecked")
    void aJoinedNodeIsListedWithItsJoin() throws Exception {
        try (ElasticCluster c = new ElasticCluster(tmp.resolve("cluster"), 3, 3);
                HeadlessChromium browser = HeadlessChromium.start(tmp.resolve("chromium-profile"))) {
            for (int i = 0; i < 200; i++) {
                assertThat(c.put(i % 3, "key" + i, "value" + i).status()).isEqualTo(201);
            }
            int joined = c.join();
            c.awaitState(joined, MemberState.NORMAL);
            c.awaitSameEpoch();

            browser.navigate(c.url(0) + "/");
            browser.screenshot(Path.of("target", "status-page-elastic.png"));
            assertThat(browser.evaluate("document.getElementById('summary').textContent"))
                    .isEqualTo("4 of 4 nodes up");
            List<Object> rows =
                    (List<Object>) JSON.readValue((String) browser.evaluate(StatusPageBrowserTest.ROWS), List.class);
            assertThat(rows).hasSize(4);
            Map<String, Object> last = (Map<String, Object>) rows.get(3);
            assertThat(last.get("url")).isEqualTo(c.url(joined));
            assertThat(last.get("state")).isEqualTo("up");
            Map<String, Object> cells = (Map<String, Object>) last.get("cells");
            assertThat(cells.get("streaming")).isEqualTo("join done");
            assertThat(((Map<String, Object>) ((Map<String, Object>) rows.get(0)).get("cells")).get("streaming"))
                    .isEqualTo("-");
        }
        assertThat(Files.size(Path.of("target", "status-page-elastic.png"))).isGreaterThan(1000);
    }
}
