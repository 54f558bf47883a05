package io.ringbase.status;

import io.ringbase.cluster.hint.HintStats;
import io.ringbase.metrics.ClusterSource;
import io.ringbase.metrics.RequestMetrics;
import io.ringbase.storage.EngineStats;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * What {@code GET /v0/status} answers: one JSON object describing this node (documented in
 * {@code docs/http-api.md}, "Status"): its URL, version, uptime, client request rate and p99, engine
 * figures, every peer with its state and last contact, the hint backlog and the repair state.
 * Thread-safe.
 */
public final class NodeStatus {

    private final Supplier<String> url;
    private final String version;
    private final String dataDir;
    private final long startedMs = System.currentTimeMillis();
    private final Supplier<EngineStats> engine;
    private final RequestMetrics requests;
    private final ClusterSource cluster;

    /**
     * @param url      this node's URL ({@code --self}, or {@code http://host:port} of a single node, known
     *                 once it is bound)
     * @param version  the build's version
     * @param dataDir  the data directory, as the operator gave it (absolute)
     * @param engine   the engine's figures
     * @param requests request counters, or {@code null} with metrics off (no rate or p99 then)
     * @param cluster  the cluster's figures, or {@code null} on a single node
     */
    public NodeStatus(Supplier<String> url, String version, String dataDir, Supplier<EngineStats> engine,
                      RequestMetrics requests, ClusterSource cluster) {
        this.url = url;
        this.version = version;
        this.dataDir = dataDir;
        this.engine = engine;
        this.requests = requests;
        this.cluster = cluster;
    }

    /** This node's URL. */
    public String url() {
        return url.get();
    }

    /** The status as one JSON object (no trailing newline). */
    public String json() {
        long now = System.currentTimeMillis();
        StringBuilder out = new StringBuilder(1024);
        out.append("{\"node\":");
        Json.quote(out, url.get());
        out.append(",\"version\":");
        Json.quote(out, version);
        out.append(",\"startedAtMs\":").append(startedMs);
        out.append(",\"uptimeSeconds\":").append((now - startedMs) / 1000);
        out.append(",\"dataDir\":");
        Json.quote(out, dataDir);
        out.append(",\"requests\":");
        if (requests == null) {
            out.append("null");
        } else {
            RequestMetrics.Recent r = requests.recent();
            out.append("{\"perSecond\":").append(decimal(r.perSecond()))
                    .append(",\"p99Ms\":").append(decimal(r.p99Ms()))
                    .append(",\"windowSeconds\":").append(decimal(r.seconds())).append('}');
        }
        EngineStats e = engine.get();
        out.append(",\"engine\":{\"memtableBytes\":").append(e.memtableBytes())
                .append(",\"sstables\":").append(e.sstables())
                .append(",\"sstableBytes\":").append(e.sstableBytes())
                .append(",\"tiers\":[");
        for (int i = 0; i < e.tiers().size(); i++) {
            EngineStats.Tier t = e.tiers().get(i);
            out.append(i == 0 ? "" : ",").append("{\"tier\":").append(t.tier()).append(",\"tables\":").append(t.tables())
                    .append(",\"bytes\":").append(t.bytes()).append('}');
        }
        out.append("],\"flushes\":").append(e.flushes())
                .append(",\"compactions\":").append(e.compactions())
                .append(",\"walAppends\":").append(e.walAppends())
                .append(",\"walSyncs\":").append(e.walSyncs())
                .append(",\"writeStalls\":").append(e.writeStalls())
                .append(",\"diskErrors\":").append(e.diskErrors()).append('}');
        out.append(",\"peers\":[");
        if (cluster != null) {
            boolean first = true;
            for (ClusterSource.Peer p : cluster.peers()) {
                out.append(first ? "" : ",").append("{\"url\":");
                Json.quote(out, p.url());
                out.append(",\"state\":\"").append(p.up() ? "up" : "down").append('"')
                        .append(",\"downSinceMs\":").append(p.downSinceMs())
                        .append(",\"lastContactMs\":").append(p.calls().lastAnswerMs())
                        .append(",\"calls\":").append(p.calls().calls())
                        .append(",\"timeouts\":").append(p.calls().timeouts())
                        .append(",\"unreachable\":").append(p.calls().unreachable())
                        .append(",\"failed\":").append(p.calls().failed()).append('}');
                first = false;
            }
        }
        out.append(']');
        out.append(",\"hints\":");
        if (cluster == null) {
            out.append("null");
        } else {
            HintStats h = cluster.hints();
            out.append("{\"pending\":").append(h.pendingHints())
                    .append(",\"pendingBytes\":").append(h.pendingBytes())
                    .append(",\"queued\":").append(h.queued())
                    .append(",\"delivered\":").append(h.delivered())
                    .append(",\"dropped\":").append(h.dropped()).append('}');
        }
        out.append(",\"readRepairs\":").append(cluster == null ? 0 : cluster.readRepairs());
        out.append(",\"repair\":").append(cluster == null ? "null" : cluster.repair().toJson());
        return out.append('}').toString();
    }

    private static String decimal(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
