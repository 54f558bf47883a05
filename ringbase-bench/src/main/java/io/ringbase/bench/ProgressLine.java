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
 * One line per second during the stable run, for the person watching: elapsed seconds, and the client
 * requests the nodes answered in the last second by status class, read from each node's {@code GET /metrics}
 * (counter {@code ringbase_http_requests_total} of the {@code entity} and {@code entities} endpoints). With a
 * node that serves no metrics ({@code --no-metrics}, another server) the line has the elapsed time only.
 * Called from one thread.
 */
final class ProgressLine {

    /** A scrape slower than this (ms) is skipped, so the line keeps its second. */
    static final long SCRAPE_TIMEOUT_MS = 500;

    private static final Pattern CLIENT_REQUESTS = Pattern.compile(
            "^ringbase_http_requests_total\\{([^}]*)\\}\\s+(\\S+)", Pattern.MULTILINE);
    private static final Pattern ENDPOINT = Pattern.compile("endpoint=\"(entity|entities)\"");
    private static final Pattern STATUS = Pattern.compile("status=\"(\\d)\\d\\d\"");

    private final List<URI> nodes;
    private final int durationS;
    private final PrintStream log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(SCRAPE_TIMEOUT_MS)).build();
    private long[] previous;

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

    /** Prints the line for second {@code elapsedS} of the run. */
    void tick(int elapsedS) {
        long[] now = scrape();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "bench: stable run %d/%d s", elapsedS, durationS));
        if (now != null && previous != null) {
            long ok = now[0] - previous[0];
            long client = now[1] - previous[1];
            long server = now[2] - previous[2];
            line.append(String.format(Locale.ROOT, ": %,d req/s answered (2xx/3xx %,d, 4xx %,d, 5xx %,d)",
                    ok + client + server, ok, client, server));
        }
        previous = now;
        log.println(line);
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
