package io.ringbase.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a write warm-up has brought the nodes to steady state: every node has finished at least one
 * compaction ({@code ringbase_compactions_total} in its {@code GET /metrics}), so it has also flushed. A
 * node's first flush and first compaction run storage code that the JIT compiled for memtable segments
 * only; meeting mapped and heap segments there it deoptimizes and C2 recompiles for seconds on the
 * node's CPU (measured: p99 of the first 40k/s run 9.47 ms without such a warm-up, 3.71 ms after one). A node in service has done both long ago. Nodes without metrics count as settled, since
 * there is nothing to wait on. Called from one thread.
 */
final class SteadyState {

    /** Length of one more warm-up run while a node has not compacted yet, s. */
    static final int RUN_S = 5;
    /** Most such runs: a node that has not compacted after {@code MAX_RUNS * RUN_S} s is measured anyway. */
    static final int MAX_RUNS = 24;

    private static final long SCRAPE_TIMEOUT_MS = 2_000;
    private static final Pattern COMPACTIONS =
            Pattern.compile("^ringbase_compactions_total\\s+(\\S+)", Pattern.MULTILINE);

    private final List<URI> nodes;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofMillis(SCRAPE_TIMEOUT_MS))
            .build();

    /** @param nodes the nodes under load */
    SteadyState(List<URI> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Whether every node has finished a compaction, or serves no metrics to tell. */
    boolean reached() {
        for (URI node : nodes) {
            OptionalLong done = compactionsOf(node);
            if (done.isPresent() && done.getAsLong() == 0) {
                return false;
            }
        }
        return true;
    }

    private OptionalLong compactionsOf(URI node) {
        return MetricsScrape.body(http, node, SCRAPE_TIMEOUT_MS)
                .map(SteadyState::compactions)
                .orElse(OptionalLong.empty());
    }

    /** The value of {@code ringbase_compactions_total} in a Prometheus text exposition, if it has one. */
    static OptionalLong compactions(String exposition) {
        Matcher m = COMPACTIONS.matcher(exposition);
        return m.find() ? OptionalLong.of((long) Double.parseDouble(m.group(1))) : OptionalLong.empty();
    }
}
