package io.ringbase.bench;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stable run's progress, for the person watching: one line per second with the elapsed seconds, and after
 * the run the client requests the nodes counted over it by status class, read from each node's {@code GET
 * /metrics} before and after (counter {@code ringbase_http_requests_total} of the {@code entity} and
 * {@code entities} endpoints). The nodes are not scraped during the run: a scrape a second cost a one-CPU node
 * at 90% of its saturation rate 100-200 ms of latency at the run's start, and the stable run's p99 went from
 * 1.0 ms without scrapes to 131-137 ms with them (bench/RESULTS.md, 2026-11-27). With a node that serves no
 * metrics ({@code --no-metrics}, another server) there is no summary line. Called from one thread.
 */
final class ProgressLine {

    /** A node that does not answer a scrape within this (ms) counts as serving no metrics. */
    static final long SCRAPE_TIMEOUT_MS = 500;

    private static final Pattern CLIENT_REQUESTS = Pattern.compile(
            "^ringbase_http_requests_total\\{([^}]*)\\}\\s+(\\S+)", Pattern.MULTILINE);
    private static final Pattern ENDPOINT = Pattern.compile("endpoint=\"(entity|entities)\"");
    private static final Pattern STATUS = Pattern.compile("status=\"(\\d)\\d\\d\"");

    private final List<URI> nodes;
    private final int durationS;
    private final PrintStream log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(SCRAPE_TIMEOUT_MS)).build();
    private long[] before;

    /**
     * @param nodes     the nodes under load
     * @param durationS the stable run's length, s
     * @param log       where the lines go (bench's stderr)
     */
    ProgressLine(List<URI> nodes, int durationS, PrintStream log) {
        this.nodes = List.copyOf(nodes);
        this.durationS = durationS;
        this.log = log;
    }

    /** Reads the nodes' counters; call right before the run, while no load runs. */
    void begin() {
        before = scrape();
    }

    /** Prints the line for second {@code elapsedS} of the run. */
    void tick(int elapsedS) {
        log.println(String.format(Locale.ROOT, "bench: stable run %d/%d s", elapsedS, durationS));
    }

    /** Reads the counters again after the run and prints what the nodes answered over it, if both reads worked. */
    void end() {
        long[] after = scrape();
        if (before == null || after == null) {
            return;
        }
        long ok = after[0] - before[0];
        long client = after[1] - before[1];
        long server = after[2] - before[2];
        log.println(String.format(Locale.ROOT, "bench: the nodes counted %,d client requests in the stable run "
                + "(2xx/3xx %,d, 4xx %,d, 5xx %,d)", ok + client + server, ok, client, server));
    }

    /** The nodes' client request counters summed, {2xx or 3xx, 4xx, 5xx}, or null if any node had none. */
    private long[] scrape() {
        long[] sum = new long[3];
        for (URI node : nodes) {
            Optional<String> body = MetricsScrape.body(http, node, SCRAPE_TIMEOUT_MS);
            if (body.isEmpty()) {
                return null;
            }
            long[] one = clientRequests(body.get());
            for (int i = 0; i < sum.length; i++) {
                sum[i] += one[i];
            }
        }
        return sum;
    }

    /**
     * The client requests counted in a Prometheus text exposition: {@code ringbase_http_requests_total} of the
     * {@code entity} and {@code entities} endpoints summed as {2xx or 3xx, 4xx, 5xx}; other statuses are left out.
     */
    static long[] clientRequests(String exposition) {
        long[] sum = new long[3];
        Matcher m = CLIENT_REQUESTS.matcher(exposition);
        while (m.find()) {
            String labels = m.group(1);
            Matcher status = STATUS.matcher(labels);
            if (!ENDPOINT.matcher(labels).find() || !status.find()) {
                continue;
            }
            long value = (long) Double.parseDouble(m.group(2));
            switch (status.group(1)) {
                case "2", "3" -> sum[0] += value;
                case "4" -> sum[1] += value;
                case "5" -> sum[2] += value;
                default -> { }
            }
        }
        return sum;
    }
}
