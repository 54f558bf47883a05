package io.ringbase.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.clock.TimeSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The status page at {@code GET /}: server-rendered HTML with inline CSS and no scripts or external
 * assets, reloading itself every {@value #REFRESH_SECONDS} s. One row per node of the cluster, from
 * each node's own {@code GET /v0/status} (fetched in parallel, {@value #FETCH_TIMEOUT_MS} ms at most):
 * state, version, uptime, client request rate and p99, memtable, SSTables, hint backlog, repair
 * state, and when this node last heard from it. Thread-safe.
 */
public final class StatusPage {

    /** Seconds between the page's reloads. */
    static final int REFRESH_SECONDS = 5;
    /** How long the page waits for another node's status, ms. */
    static final long FETCH_TIMEOUT_MS = 1_000;

    /** The parser of other nodes' status, made at the first page (a holder class): 100 ms of a node's start. */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();

        private Json() {}
    }

    private final NodeStatus self;
    private final java.util.function.Supplier<List<String>> peers;
    /** Made at the first page: building one took 80 ms of a node's start, and most nodes never show a page. */
    private @Nullable HttpClient http;
    /** The TLS context {@link #http} was made with, or null for none. */
    private @Nullable SSLContext httpContext;

    private final java.util.function.@Nullable Supplier<SSLContext> tls;

    private final TimeSource time;

    /**
     * @param self  this node's status
     * @param peers the other nodes' URLs now, in {@code --cluster} order after this one's place (read for every
     *              page: nodes join and leave)
     * @param time  the wall clock the page is stamped with
     */
    public StatusPage(NodeStatus self, java.util.function.Supplier<List<String>> peers, TimeSource time) {
        this(self, peers, time, null);
    }

    /**
     * As {@link #StatusPage(NodeStatus, Supplier, TimeSource)}, calling {@code https://} peers with the
     * context {@code tls} gives (the node's certificate and CA, reloaded): a new context makes a new client.
     */
    public StatusPage(
            NodeStatus self,
            java.util.function.Supplier<List<String>> peers,
            TimeSource time,
            java.util.function.@Nullable Supplier<SSLContext> tls) {
        this.self = self;
        this.peers = peers;
        this.time = time;
        this.tls = tls;
    }

    private synchronized HttpClient http() {
        SSLContext context = tls == null ? null : tls.get();
        if (http == null || context != httpContext) {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(FETCH_TIMEOUT_MS));
            if (context != null) {
                b.sslContext(context);
            }
            HttpClient old = http;
            http = b.build();
            httpContext = context;
            if (old != null) {
                old.shutdown(); // its fetches in flight finish
            }
        }
        return http;
    }

    /** One node's row: its parsed status, or why it could not be had. */
    private record Row(
            String url, @Nullable JsonNode status, @Nullable String error) {}

    /** The page now; blocks for up to {@value #FETCH_TIMEOUT_MS} ms (a worker thread). */
    public String render() {
        List<CompletableFuture<Row>> fetches = new ArrayList<>();
        for (String url : peers.get()) {
            fetches.add(fetch(url));
        }
        JsonNode mine = self.tree();
        List<Row> rows = new ArrayList<>();
        rows.add(new Row(self.url(), mine, null));
        for (CompletableFuture<Row> f : fetches) {
            rows.add(f.join());
        }
        return html(mine, rows);
    }

    private CompletableFuture<Row> fetch(String url) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v0/status"))
                .timeout(Duration.ofMillis(FETCH_TIMEOUT_MS))
                .GET()
                .build();
        return http().sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenApply(r -> r.statusCode() == 200
                        ? parsed(url, r.body())
                        : new Row(url, null, "answered " + r.statusCode()))
                .exceptionally(t -> new Row(url, null, "no answer (" + rootMessage(t) + ")"));
    }

    /** A node's answer as a row: its status, or that it sent no JSON object. */
    private static Row parsed(String url, String body) {
        try {
            JsonNode status = Json.MAPPER.readTree(body);
            return status.isObject() ? new Row(url, status, null) : new Row(url, null, "answered no JSON object");
        } catch (JsonProcessingException e) {
            return new Row(url, null, "answered bad JSON (" + e.getOriginalMessage() + ")");
        }
    }

    private static String rootMessage(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName();
    }

    private String html(JsonNode mine, List<Row> rows) {
        int up = 0;
        for (Row r : rows) {
            up += r.status() != null ? 1 : 0;
        }
        StringBuilder out = new StringBuilder(8192);
        out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta http-equiv=\"refresh\" content=\"")
                .append(REFRESH_SECONDS)
                .append("\">")
                .append("<title>Ringbase: ")
                .append(escape(self.url()))
                .append("</title><style>")
                .append("body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fafafa;")
                .append("max-width:1248px}")
                .append("h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:20px 0 6px}")
                .append("p.sub{color:#666;margin:0 0 12px}")
                .append("table{border-collapse:collapse;background:#fff;box-shadow:0 1px 2px #0002;width:100%}")
                .append("th,td{padding:5px 7px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}")
                .append("td.streaming,td.url{white-space:normal}td.graph{padding:2px 7px}")
                .append("svg text{font:11px system-ui,sans-serif;fill:#555}")
                .append("th{background:#f0f0f0;font-weight:600}td.url,th.url{text-align:left}")
                .append(".state-up{color:#0a7d32;font-weight:600}.state-down{color:#c62828;font-weight:600}")
                .append(".state-pending,.state-replacing,.state-joining,.state-leaving{color:#b26a00;font-weight:600}")
                .append(".state-left{color:#888;font-weight:600}")
                .append("td.error{text-align:left;color:#c62828}")
                .append("tr.self td.url::after{content:\" (this node)\";color:#888}")
                .append("</style></head><body>\n");
        out.append("<h1>Ringbase cluster</h1><p class=\"sub\"><span id=\"summary\">")
                .append(up)
                .append(" of ")
                .append(rows.size())
                .append(" nodes up</span> &middot; replication factor ")
                .append(mine.path("replicationFactor").asInt(1))
                .append(" &middot; seen from ")
                .append(escape(self.url()))
                .append(" &middot; version ")
                .append(escape(mine.path("version").textValue()))
                .append(" &middot; ")
                .append(escape(Instant.ofEpochMilli(time.currentTimeMillis()).toString()))
                .append(" &middot; reloads every ")
                .append(REFRESH_SECONDS)
                .append(" s</p>\n");
        out.append("<table id=\"nodes\"><thead><tr><th class=\"url\">node</th><th>state</th>")
                .append("<th>uptime</th><th>requests/s</th><th>p99 ms</th><th>memtable</th><th>SSTables</th>")
                .append("<th>size</th><th>hints</th><th>repair</th><th>streaming</th><th>jobs</th><th>last contact</th>"
                        + "</tr></thead><tbody>\n");
        for (Row r : rows) {
            row(out, r, r.url().equals(self.url()), mine);
        }
        out.append("</tbody></table>\n<p class=\"sub\">Figures from each node's <code>/v0/status</code>; ")
                .append("request rate and p99 over the last minute of client requests; metrics at ")
                .append("<code>/metrics</code>.</p>\n");
        HistoryGraphs.append(
                out,
                rows.stream()
                        .map(r -> new HistoryGraphs.Node(r.url(), r.status()))
                        .toList());
        out.append("</body></html>\n");
        return out.toString();
    }

    private void row(StringBuilder out, Row r, boolean isSelf, JsonNode mine) {
        JsonNode s = r.status();
        String nodeState =
                s == null ? "NORMAL" : s.path("membership").path("state").asText("NORMAL");
        // a node that answers but serves no reads yet (new, or streaming lost data back) says which
        String state = s == null ? "down" : nodeState.equals("NORMAL") ? "up" : nodeState.toLowerCase(Locale.ROOT);
        out.append("<tr class=\"node")
                .append(isSelf ? " self" : "")
                .append("\" data-url=\"")
                .append(escape(r.url()))
                .append("\" data-state=\"")
                .append(state)
                .append("\">");
        out.append("<td class=\"url\"><a href=\"")
                .append(escape(r.url()))
                .append("/\" title=\"version ")
                .append(s == null ? "unknown" : escape(s.path("version").textValue()))
                .append("\">")
                .append(escape(r.url()))
                .append("</a></td>");
        out.append("<td class=\"state state-")
                .append(state)
                .append("\"")
                .append(r.error() == null ? "" : " title=\"" + escape(r.error()) + "\"")
                .append('>')
                .append(state)
                .append("</td>");
        if (s == null) {
            out.append("<td colspan=\"10\" class=\"error\">")
                    .append(escape(r.error()))
                    .append("</td>");
        } else {
            cell(out, "uptime", duration(s.path("uptimeSeconds").asDouble(Double.NaN)));
            cell(
                    out,
                    "rate",
                    !s.hasNonNull("requests")
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%.1f",
                                    s.path("requests").path("perSecond").asDouble(Double.NaN)));
            cell(
                    out,
                    "p99",
                    !s.hasNonNull("requests")
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%.2f",
                                    s.path("requests").path("p99Ms").asDouble(Double.NaN)));
            cell(out, "memtable", bytes(s.path("engine").path("memtableBytes").asDouble(Double.NaN)));
            cell(
                    out,
                    "sstables",
                    String.format(
                            Locale.ROOT,
                            "%.0f",
                            s.path("engine").path("sstables").asDouble(Double.NaN)));
            cell(
                    out,
                    "sstable-bytes",
                    bytes(s.path("engine").path("sstableBytes").asDouble(Double.NaN)));
            double hints = s.path("hints").path("pending").asDouble(Double.NaN);
            cell(out, "hints", Double.isNaN(hints) ? "-" : String.format(Locale.ROOT, "%.0f", hints));
            String repair = s.path("repair").path("state").textValue();
            cell(out, "repair", repair == null ? "-" : escape(repair));
            cell(out, "streaming", streaming(s.path("membership").path("change")));
            JsonNode jobs = s.path("functions").path("running"); // server-side function jobs coordinated there
            cell(out, "jobs", jobs.isArray() ? Integer.toString(jobs.size()) : "-");
        }
        cell(out, "contact", isSelf ? "-" : lastContact(mine, r.url()));
        out.append("</tr>\n");
    }

    /**
     * A membership change's progress, as {@code join 2/3 streams, 120.5 MB at 80.1 MB/s}, or its phase when it is
     * not streaming; {@code -} for none.
     */
    private static String streaming(JsonNode change) {
        String kind = change.path("kind").asText("none");
        if (kind.equals("none")) {
            return "-";
        }
        String phase = change.path("phase").asText("");
        if (!phase.equals("streaming")) {
            return escape(kind + " " + phase);
        }
        return escape(String.format(
                Locale.ROOT,
                "%s %d/%d streams, %.1f MB at %.1f MB/s",
                kind,
                change.path("streamsDone").asInt(),
                change.path("streamsTotal").asInt(),
                change.path("bytes").asDouble() / 1e6,
                change.path("megabytesPerSecond").asDouble()));
    }

    /** When this node last heard from {@code url}, from its own status's peer list. */
    private String lastContact(JsonNode mine, String url) {
        for (JsonNode p : mine.path("peers")) {
            if (url.equals(p.path("url").textValue())) {
                double ms = p.path("lastContactMs").asDouble(Double.NaN);
                if (ms <= 0) {
                    return "never";
                }
                return duration((time.currentTimeMillis() - ms) / 1000) + " ago";
            }
        }
        return "-";
    }

    private static void cell(StringBuilder out, String name, String text) {
        out.append("<td class=\"").append(name).append("\">").append(text).append("</td>");
    }

    private static String bytes(double b) {
        if (Double.isNaN(b)) {
            return "-";
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (b >= 1024 && u < units.length - 1) {
            b /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    }

    private static String duration(double seconds) {
        if (Double.isNaN(seconds)) {
            return "-";
        }
        long s = (long) seconds;
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return (s / 60) + " min";
        }
        if (s < 86400) {
            return String.format(Locale.ROOT, "%.1f h", s / 3600.0);
        }
        return String.format(Locale.ROOT, "%.1f d", s / 86400.0);
    }

    /** Escapes text for HTML content and attribute values. */
    static String escape(@Nullable String s) {
        if (s == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
