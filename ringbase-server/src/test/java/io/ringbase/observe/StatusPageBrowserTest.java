package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NeedsCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page of a 3-node cluster in a real browser (Debian's headless Chromium over DevTools):
 * every node is a row with its state and figures, the page has no external assets and reloads itself,
 * and a stopped node shows as down. Screenshots go to {@code target/status-page-*.png}.
 */
@IntegrationTest
@NeedsCommands("chromium|chromium-browser") // Debian's chromium, which .ci/run installs
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StatusPageBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** Each row of the page as {url, state, self, cells by class}. */
    static final String ROWS = """
            JSON.stringify([...document.querySelectorAll('#nodes tr.node')].map(r => ({
              url: r.dataset.url, state: r.dataset.state, self: r.classList.contains('self'),
              cells: Object.fromEntries([...r.querySelectorAll('td')].map(td => [td.className, td.textContent]))
            })))""";

    @Test
    @SuppressWarnings("unchecked")
    void theStatusPageShowsEveryNodeOfAThreeNodeClusterAndANodeThatIsDown() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp.resolve("cluster"), 3);
                HeadlessChromium browser = HeadlessChromium.start(tmp.resolve("chromium-profile"))) {
            c.awaitAllUp(Duration.ofSeconds(15));
            for (int i = 0; i < 20; i++) {
                assertThat(c.put(i % 3, "key" + i, "value" + i).status()).isEqualTo(201);
            }
            c.node(0).engine().flush();

            browser.navigate(c.url(0) + "/");
            browser.screenshot(Path.of("target", "status-page-3-up.png"));
            assertThat(browser.evaluate("document.title")).isEqualTo("Ringbase: " + c.url(0));
            assertThat(browser.evaluate("document.getElementById('summary').textContent"))
                    .isEqualTo("3 of 3 nodes up");
            assertThat(browser.evaluate("document.querySelector('meta[http-equiv=refresh]').content"))
                    .isEqualTo("5");
            assertThat(browser.evaluate("document.querySelectorAll('script, link, img, iframe, [src]').length"))
                    .as("no scripts or external assets")
                    .isEqualTo(0);
            List<Object> rows = (List<Object>) JSON.readValue((String) browser.evaluate(ROWS), List.class);
            assertThat(rows).hasSize(3);
            for (int i = 0; i < 3; i++) {
                Map<String, Object> row = (Map<String, Object>) rows.get(i);
                Map<String, Object> cells = (Map<String, Object>) row.get("cells");
                assertThat(row.get("url")).isEqualTo(c.url(i));
                assertThat(row.get("state")).isEqualTo("up");
                assertThat(row.get("self")).isEqualTo(i == 0);
                assertThat(cells.get("state state-up")).isEqualTo("up");
                assertThat((String) cells.get("rate")).matches("\\d+\\.\\d");
                assertThat((String) cells.get("p99")).matches("\\d+\\.\\d\\d");
                assertThat((String) cells.get("memtable")).matches("[\\d.]+ (B|KiB|MiB)");
                assertThat((String) cells.get("hints")).matches("\\d+");
                assertThat(cells.get("repair")).isEqualTo("idle");
            }
            Map<String, Object> self = (Map<String, Object>) ((Map<String, Object>) rows.get(0)).get("cells");
            assertThat(self.get("sstables")).isEqualTo("1");
            assertThat(Double.parseDouble((String) self.get("rate")))
                    .as("node 0 served client requests")
                    .isPositive();
            assertThat((String) ((Map<String, Object>) ((Map<String, Object>) rows.get(1)).get("cells")).get("contact"))
                    .endsWith(" ago");

            // the graphs: two points of history (one per 10 s) with requests in them
            LocalCluster.await(Duration.ofSeconds(60), "two points of history on node 0", () -> {
                assertThat(c.put(0, "graph", "x").status()).isEqualTo(201);
                return c.send(0, "GET", "/v0/status", null).body().matches("(?s).*\"perSecond\":\\[[^\\]]*,.*");
            });
            browser.navigate(c.url(0) + "/");
            browser.screenshot(Path.of("target", "status-page-graphs.png"));
            assertThat(browser.evaluate("document.querySelectorAll('#graphs tr.history').length"))
                    .isEqualTo(3);
            assertThat(browser.evaluate("document.querySelectorAll('#graphs tr.history td.graph svg').length"))
                    .isEqualTo(9);
            assertThat(browser.evaluate(
                            "document.querySelectorAll('#graphs tr.history:first-child td.rate polyline').length"))
                    .isEqualTo(1);
            assertThat(browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))
                    .as("the page fits the window (1280 px): no horizontal scrolling")
                    .isEqualTo(true);

            c.stop(2);
            browser.navigate(c.url(0) + "/");
            browser.screenshot(Path.of("target", "status-page-node-down.png"));
            assertThat(browser.evaluate("document.getElementById('summary').textContent"))
                    .isEqualTo("2 of 3 nodes up");
            rows = (List<Object>) JSON.readValue((String) browser.evaluate(ROWS), List.class);
            Map<String, Object> down = (Map<String, Object>) rows.get(2);
            assertThat(down.get("url")).isEqualTo(c.url(2));
            assertThat(down.get("state")).isEqualTo("down");
            assertThat((String) ((Map<String, Object>) down.get("cells")).get("error"))
                    .startsWith("no answer");
            assertThat(browser.evaluate("document.querySelector('#graphs tr.history:last-child td.error').textContent"))
                    .isEqualTo("no answer");
        }
        assertThat(Files.size(Path.of("target", "status-page-3-up.png"))).isGreaterThan(1000);
    }
}
