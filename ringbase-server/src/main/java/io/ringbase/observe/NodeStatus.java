package io.ringbase.observe;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.repair.RepairStatus;
import io.ringbase.storage.EngineStats;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What {@code GET /v0/status} answers: one JSON object describing this node (documented in
 * {@code docs/http-api.md}, "Status"): its URL, version, uptime, client request rate and p99, engine
 * figures, every peer with its state and last contact, the hint backlog and the repair state.
 * Thread-safe.
 */
public final class NodeStatus {

    private volatile @Nullable FunctionSource functions;

    /** Decimals as written ({@code 0.000}), not normalized ({@code 0}, {@code 1.5E+2}). */
    private static final JsonNodeFactory NODES = new JsonNodeFactory(true);

    private final Supplier<String> url;
    private final String version;
    private final String dataDir;
    private final long startedMs;
    private final TimeSource time;
    private final Supplier<EngineStats> engine;
    private final @Nullable RequestMetrics requests;
    private final @Nullable RequestHistory history;
    private final Optional<ClusterSource> cluster;

    /**
     * @param url      this node's URL ({@code --self}, or {@code http://host:port} of a single node, known
     *                 once it is bound)
     * @param version  the build's version
     * @param dataDir  the data directory, as the operator gave it (absolute)
     * @param engine   the engine's figures
     * @param requests request counters, or {@code null} with metrics off (no rate or p99 then)
     * @param cluster  the cluster's figures; empty for a node alone, which has no peers, hints or repair
     * @param time     the wall clock of the start time and uptime
     */
    public NodeStatus(
            Supplier<String> url,
            String version,
            String dataDir,
            Supplier<EngineStats> engine,
            @Nullable RequestMetrics requests,
            Optional<ClusterSource> cluster,
            TimeSource time) {
        this(url, version, dataDir, engine, requests, null, cluster, time);
    }

    /**
     * As above, with the history of client requests that the status page graphs ({@code null}: none, as
     * with metrics off).
     */
    public NodeStatus(
            Supplier<String> url,
            String version,
            String dataDir,
            Supplier<EngineStats> engine,
            @Nullable RequestMetrics requests,
            @Nullable RequestHistory history,
            Optional<ClusterSource> cluster,
            TimeSource time) {
        this.history = history;
        this.time = time;
        this.startedMs = time.currentTimeMillis();
        this.url = url;
        this.version = version;
        this.dataDir = dataDir;
        this.engine = engine;
        this.requests = requests;
        this.cluster = cluster;
    }

    /** Adds the server-side functions to the report (a {@code functions} object). Call once, at assembly. */
    public void addFunctions(FunctionSource source) {
        this.functions = source;
    }

    /** This node's URL. */
    public String url() {
        return url.get();
    }

    /** The status as one JSON object (no trailing newline): {@link #tree()} written out. */
    public String json() {
        return tree().toString();
    }

    /**
     * The status as a JSON tree, its fields in this order (docs/http-api.md, "Status"): {@code node},
     * {@code version}, {@code startedAtMs}, {@code uptimeSeconds}, {@code dataDir}, {@code replicationFactor}
     * (1 on a single node), {@code requests} ({@code null} with metrics off, else {@code perSecond},
     * {@code p99Ms}, {@code windowSeconds}, three decimals), {@code history} ({@code null} without one, else
     * {@code intervalSeconds} and the arrays {@code perSecond}, {@code p99Ms}, {@code errorsPerSecond}, oldest
     * first), {@code engine}, {@code peers} (empty on a single node), {@code hints} ({@code null} on a
     * single node), {@code readRepairs}, {@code speculativeReads}, {@code repair} ({@code null} on a single node, else
     * {@link RepairStatus#tree()}).
     */
    public ObjectNode tree() {
        long now = time.currentTimeMillis();
        ObjectNode out = NODES.objectNode();
        out.put("node", url.get());
        out.put("version", version);
        out.put("startedAtMs", startedMs);
        out.put("uptimeSeconds", (now - startedMs) / 1000);
        out.put("dataDir", dataDir);
        out.put(
                "replicationFactor",
                cluster.map(ClusterSource::replicationFactor).orElse(1));
        if (requests == null) {
            out.putNull("requests");
        } else {
            RequestMetrics.Recent r = requests.recent();
            out.putObject("requests")
                    .put("perSecond", decimal(r.perSecond()))
                    .put("p99Ms", decimal(r.p99Ms()))
                    .put("windowSeconds", decimal(r.seconds()));
        }
        if (history == null) {
            out.putNull("history");
        } else {
            ObjectNode h = out.putObject("history").put("intervalSeconds", RequestHistory.INTERVAL_SECONDS);
            ArrayNode rate = h.putArray("perSecond");
            ArrayNode p99 = h.putArray("p99Ms");
            ArrayNode errors = h.putArray("errorsPerSecond");
            for (RequestHistory.Point p : history.points()) {
                rate.add(decimal(p.perSecond()));
                p99.add(decimal(p.p99Ms()));
                errors.add(decimal(p.errorsPerSecond()));
            }
        }
        EngineStats e = engine.get();
        ObjectNode eng = out.putObject("engine");
        eng.put("memtableBytes", e.memtableBytes())
                .put("sstables", e.sstables())
                .put("sstableBytes", e.sstableBytes());
        ArrayNode tiers = eng.putArray("tiers");
        for (EngineStats.Tier t : e.tiers()) {
            tiers.addObject().put("tier", t.tier()).put("tables", t.tables()).put("bytes", t.bytes());
        }
        eng.put("flushes", e.flushes())
                .put("compactions", e.compactions())
                .put("walAppends", e.walAppends())
                .put("walSyncs", e.walSyncs())
                .put("writeStalls", e.writeStalls())
                .put("diskErrors", e.diskErrors());
        ArrayNode peers = out.putArray("peers");
        for (ClusterSource.Peer p : cluster.map(ClusterSource::peers).orElse(List.of())) {
            peers.addObject()
                    .put("url", p.url())
                    .put("state", p.up() ? "up" : "down")
                    .put("downSinceMs", p.downSinceMs())
                    .put("slow", p.slow())
                    .put("lastContactMs", p.calls().lastAnswerMs())
                    .put("calls", p.calls().calls())
                    .put("timeouts", p.calls().timeouts())
                    .put("unreachable", p.calls().unreachable())
                    .put("failed", p.calls().failed());
        }
        cluster.map(ClusterSource::hints)
                .ifPresentOrElse(
                        h -> out.putObject("hints")
                                .put("pending", h.pendingHints())
                                .put("pendingBytes", h.pendingBytes())
                                .put("queued", h.queued())
                                .put("delivered", h.delivered())
                                .put("dropped", h.dropped()),
                        () -> out.putNull("hints"));
        out.put("readRepairs", cluster.map(ClusterSource::readRepairs).orElse(0L));
        FunctionSource fns = functions;
        if (fns != null) {
            ObjectNode f = out.putObject("functions");
            f.put("started", fns.started())
                    .put("ended", fns.ended())
                    .put("failedCalls", fns.failedCalls())
                    .put("keysProcessed", fns.keysProcessed());
            var jobs = f.putArray("running");
            for (FunctionSource.Job j : fns.running()) {
                jobs.addObject()
                        .put("job", j.id())
                        .put("function", j.function())
                        .put("mode", j.mode())
                        .put("keysSeen", j.keysSeen())
                        .put("recordsOut", j.recordsOut())
                        .put("errors", j.errors());
            }
        }
        out.put("speculativeReads", cluster.map(ClusterSource::speculativeReads).orElse(0L));
        cluster.map(ClusterSource::repair)
                .ifPresentOrElse(r -> out.set("repair", r.tree()), () -> out.putNull("repair"));
        cluster.ifPresentOrElse(
                c -> {
                    NodeIdentity id = c.identity();
                    var m = out.putObject("membership")
                            .put("cluster", id.clusterName())
                            .put("nodeId", id.nodeId())
                            .put("incarnation", id.incarnationHex())
                            .put("state", id.state().name())
                            .put("replicationFactor", c.replicationFactor())
                            .put("epoch", 0)
                            .put("digest", c.membership().digestHex());
                    c.elastic().ifPresent(el -> {
                        // a node that lost its data (PENDING, REPLACING by its peers' memory) shows that first
                        m.put("nodeId", el.nodeId())
                                .put("epoch", el.epoch())
                                .put(
                                        "state",
                                        id.state().name().equals("NORMAL")
                                                ? el.state()
                                                : id.state().name());
                        m.putObject("change")
                                .put("kind", el.changeKind())
                                .put("phase", el.changePhase())
                                .put("streamsDone", el.streamsDone())
                                .put("streamsTotal", el.streamsTotal())
                                .put("entries", el.streamedEntries())
                                .put("bytes", el.streamedBytes())
                                .put("elapsedMs", el.elapsedMs())
                                .put("megabytesPerSecond", decimal(el.megabytesPerSecond()));
                    });
                },
                () -> out.putNull("membership"));
        return out;
    }

    /** {@code v} with three decimals, as the status has always written rates and latencies. */
    private static BigDecimal decimal(double v) {
        return Double.isFinite(v) ? BigDecimal.valueOf(v).setScale(3, RoundingMode.HALF_UP) : BigDecimal.ZERO;
    }
}
