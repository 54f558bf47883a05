package io.ringbase.observe;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The status page's graphs: for each node, its client request rate, p99 latency and 5xx rate over the last
 * ten minutes, from the {@code history} of its {@code /v0/status} ({@link RequestHistory}), as inline SVG
 * (no script, no external asset). Three graphs per node, side by side, fit a 1280 px window.
 */
final class HistoryGraphs {

    /** One node: its URL and its status, {@code null} if it did not answer. */
    record Node(String url, @Nullable JsonNode status) {}

    static final int WIDTH = 330;
    static final int HEIGHT = 54;
    private static final int TOP = 14; // room for the label above the plot

    private HistoryGraphs() {}

    /** Appends the section: a heading and one row of three graphs per node. */
    static void append(StringBuilder out, List<Node> nodes) {
        out.append("<h2>Last ")
                .append(RequestHistory.POINTS * RequestHistory.INTERVAL_SECONDS / 60)
                .append(" minutes</h2>\n<table id=\"graphs\"><thead><tr><th class=\"url\">node</th>")
                .append("<th class=\"url\">requests/s</th><th class=\"url\">p99 ms</th>")
                .append("<th class=\"url\">errors/s (5xx)</th></tr></thead><tbody>\n");
        for (Node n : nodes) {
            out.append("<tr class=\"history\" data-url=\"")
                    .append(StatusPage.escape(n.url()))
                    .append("\"><td class=\"url\">")
                    .append(StatusPage.escape(n.url()))
                    .append("</td>");
            JsonNode h = n.status() == null ? null : n.status().path("history");
            if (h == null || !h.isObject()) {
                out.append("<td colspan=\"3\" class=\"error\">")
                        .append(n.status() == null ? "no answer" : "no history (metrics off)")
                        .append("</td>");
            } else {
                graph(out, "graph rate", values(h.path("perSecond")), "%.0f/s", "#1565c0");
                graph(out, "graph p99", values(h.path("p99Ms")), "%.2f ms", "#6a1b9a");
                graph(out, "graph errors", values(h.path("errorsPerSecond")), "%.1f/s", "#c62828");
            }
            out.append("</tr>\n");
        }
        out.append("</tbody></table>\n<p class=\"sub\">One point per ")
                .append(RequestHistory.INTERVAL_SECONDS)
                .append(" s, newest on the right; each graph scaled to its own maximum.</p>\n");
    }

    private static List<Double> values(JsonNode array) {
        List<Double> out = new ArrayList<>();
        for (JsonNode v : array) {
            out.add(v.asDouble(0));
        }
        return out;
    }

    /** One cell: a polyline of {@code values} (oldest first) right-aligned, with "now" and "max" above it. */
    private static void graph(StringBuilder out, String cls, List<Double> values, String format, String color) {
        double max = 0;
        for (double v : values) {
            max = Math.max(max, v);
        }
        double now = values.isEmpty() ? 0 : values.getLast();
        out.append("<td class=\"")
                .append(cls)
                .append("\"><svg width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(HEIGHT)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(HEIGHT)
                .append("\" role=\"img\"><rect x=\"0\" y=\"")
                .append(TOP)
                .append("\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(HEIGHT - TOP)
                .append("\" fill=\"#f6f8fa\"/>");
        out.append("<text x=\"2\" y=\"11\">now ")
                .append(String.format(Locale.ROOT, format, now))
                .append(" &middot; max ")
                .append(String.format(Locale.ROOT, format, max))
                .append("</text>");
        if (values.isEmpty()) {
            out.append("<text x=\"2\" y=\"36\">no points yet</text>");
        } else {
            double step = (double) WIDTH / (RequestHistory.POINTS - 1);
            double x0 = WIDTH - step * (values.size() - 1);
            double scale = max > 0 ? (HEIGHT - TOP - 2) / max : 0;
            out.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"1.5\" points=\"");
            for (int i = 0; i < values.size(); i++) {
                out.append(String.format(Locale.ROOT, "%.1f,%.1f ", x0 + i * step, HEIGHT - 1 - values.get(i) * scale));
            }
            out.append("\"/>");
            out.append(String.format( // the newest point, visible while the line is still short
                    Locale.ROOT,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
                    x0 + (values.size() - 1) * step,
                    HEIGHT - 1 - now * scale,
                    color));
        }
        out.append("</svg></td>");
    }
}
