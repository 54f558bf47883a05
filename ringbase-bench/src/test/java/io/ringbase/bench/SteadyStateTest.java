package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.ringbase.testing.IntegrationTest;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

@IntegrationTest
class SteadyStateTest {

    @Test
    void readsTheCompactionCounterFromAnExposition() {
        String text = """
                # HELP ringbase_compactions_total Compactions finished
                # TYPE ringbase_compactions_total counter
                ringbase_compactions_total 3.0
                ringbase_compactions_totally_other 9.0
                """;
        assertThat(SteadyState.compactions(text)).hasValue(3);
        assertThat(SteadyState.compactions("ringbase_flushes_total 2.0\n")).isEmpty();
    }

    @Test
    void reachedOnceEveryNodeHasCompactedOrHasNoMetrics() throws Exception {
        AtomicReference<String> body = new AtomicReference<>("ringbase_compactions_total 0.0\n");
        HttpServer node = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        node.createContext("/metrics", ex -> {
            byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        HttpServer noMetrics = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        noMetrics.createContext("/", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        node.start();
        noMetrics.start();
        try {
            SteadyState steady = new SteadyState(List.of(
                    URI.create("http://127.0.0.1:" + node.getAddress().getPort()),
                    URI.create("http://127.0.0.1:" + noMetrics.getAddress().getPort())));
            assertThat(steady.reached()).as("one node has not compacted").isFalse();
            body.set("ringbase_compactions_total 1.0\n");
            assertThat(steady.reached()).isTrue();
        } finally {
            node.stop(0);
            noMetrics.stop(0);
        }
    }
}
