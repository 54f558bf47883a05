package io.ringbase.observe;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.hint.HintStats;
import io.ringbase.cluster.membership.NodeState;
import io.ringbase.cluster.repair.RepairStatus;
import io.ringbase.os.ThreadPriority;
import io.ringbase.storage.EngineStats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's metrics in the Prometheus text exposition format (version 0.0.4), through the Prometheus
 * Java client 1.x: its registry, its text writer and its JVM collectors (GC pauses, heap and other
 * memory pools, buffer pools including direct memory, threads, without the deadlock gauges). Ringbase's own figures are read at
 * scrape time from the counters the node keeps anyway ({@link RequestMetrics}, {@link EngineStats},
 * {@link ClusterSource}), so scraping adds nothing to the request path. Every metric is described in
 * {@code docs/operations.md}, "Metrics". Thread-safe.
 */
public final class NodeMetrics {

    /** The {@code Content-Type} of {@link #scrape()}. */
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    /**
     * The JVM collectors' metrics a scrape leaves out: {@code jvm_threads_deadlocked} and
     * {@code jvm_threads_deadlocked_monitor} call {@code ThreadMXBean.findDeadlockedThreads()}, a
     * stop-the-world safepoint ("FindDeadlocks" in {@code -Xlog:safepoint}) at every scrape, and a
     * safepoint waits for every Java thread, the compaction thread at its lowest priority included. Measured with a
     * scrape every 250 ms during 44k PUT/s on one CPU: 268 such safepoints in 40 s, one of them 148.7 ms to
     * reach. A deadlock shows in a thread dump ({@code jcmd Thread.print}).
     */
    private static final Set<String> LEFT_OUT = Set.of("jvm_threads_deadlocked", "jvm_threads_deadlocked_monitor");

    /**
     * Priority ({@link ThreadPriority} level) of the thread that collects and writes a scrape: nice 19. A scrape
     * took 20-30 ms on an idle node (curl included; more for the first, which loads classes). At normal priority, on a node with one
     * CPU, that time came out of the event loop's: with one scrape a second during 40,000 GETs/s the p99 was
     * 9.2-28 ms against 2.4-3.6 ms without, and the first scrape stalled requests for 48-82 ms. Not
     * {@code SCHED_IDLE}: a saturated node must still answer its scrapes.
     */
    static final int SCRAPE_NICE = 19;
    /** Longest wait for a scrape, ms (Prometheus' default scrape timeout). */
    static final long SCRAPE_TIMEOUT_MS = 10_000;
    /** Scrapes that may wait for the collecting thread at once; more are refused. */
    static final int SCRAPES_WAITING = 8;

    private static final Logger log = LoggerFactory.getLogger(NodeMetrics.class);

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    /** One low-priority thread, started on demand and gone after 30 s idle, so a node needs no close. */
    private final ThreadPoolExecutor scraper = scraper();

    /**
     * @param version  the build's version ({@code ringbase_build_info})
     * @param requests HTTP request counters and latencies
     * @param engine   the engine's figures, read once per scrape
     * @param cluster  the cluster services' figures; empty for a node alone, which has no peers, hints or repair
     * @param time     the wall clock of {@code ringbase_uptime_seconds}
     */
    public NodeMetrics(
            String version,
            RequestMetrics requests,
            Supplier<EngineStats> engine,
            Optional<ClusterSource> cluster,
            TimeSource time) {
        registry.register(new RingbaseCollector(version, time.currentTimeMillis(), requests, engine, cluster, time));
        // The JVM's metrics are registered on the scrape thread, the first task it runs, so before any scrape:
        // registering them (the JDK's management beans) took 150 ms of a node's start on the thread that
        // starts it. Then one scrape, thrown away: it loads the classes a scrape needs while the node has no
        // load. Loaded under load, they stalled the event loop for 25-90 ms at the first scrape, also at nice
        // 19 (class loading can deoptimize hot compiled code)
        scraper.execute(() -> {
            try {
                JvmMetrics.builder().register(registry);
            } catch (RuntimeException e) {
                log.warn("the JVM's metrics (jvm_*) could not be registered and are left out: {}", e.toString());
            }
            try {
                collect();
            } catch (RuntimeException e) {
                log.debug("the start-up scrape failed (the next one will say why): {}", e.toString());
            }
        });
    }

    /** Adds the server-side functions' metrics ({@code ringbase_function_*}). */
    public void addFunctions(FunctionSource functions) {
        registry.register(new FunctionCollector(functions));
    }

    private static ThreadPoolExecutor scraper() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                1,
                1,
                30,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(SCRAPES_WAITING),
                ThreadPriority.background("metrics-scrape", SCRAPE_NICE));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * Every metric now, in the text format, collected on the node's low-priority scrape thread
     * ({@link #SCRAPE_NICE}) while the caller waits.
     *
     * @throws IllegalStateException when {@value #SCRAPES_WAITING} scrapes already wait, or this one took more
     *                               than {@value #SCRAPE_TIMEOUT_MS} ms (the CPU is saturated), or was interrupted
     */
    public byte[] scrape() {
        Future<byte[]> done;
        try {
            done = scraper.submit(this::collect);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException(SCRAPES_WAITING + " scrapes are already waiting; scrape less often", e);
        }
        try {
            return done.get(SCRAPE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            done.cancel(true);
            throw new IllegalStateException(
                    "the scrape took over " + SCRAPE_TIMEOUT_MS + " ms (is the node's CPU saturated?)", e);
        } catch (InterruptedException e) {
            done.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the scrape", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("the scrape failed", e.getCause());
        }
    }

    private byte[] collect() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
        try {
            writer.write(out, registry.scrape(name -> !LEFT_OUT.contains(name)));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return out.toByteArray();
    }

    /** Builds the {@code ringbase_*} metrics from the node's counters at each scrape. */
    private record RingbaseCollector(
            String version,
            long startedMs,
            RequestMetrics requests,
            Supplier<EngineStats> engine,
            Optional<ClusterSource> cluster,
            TimeSource time)
            implements MultiCollector {

        @Override
        public MetricSnapshots collect() {
            List<MetricSnapshot> out = new ArrayList<>();
            out.add(gauge(
                    "ringbase_build_info", "Build of this node (the value is always 1)", point(1, "version", version)));
            out.add(gauge(
                    "ringbase_uptime_seconds",
                    "Time since the node started",
                    point((time.currentTimeMillis() - startedMs) / 1000.0)));
            out.add(gauge(
                    "ringbase_replication_factor",
                    "Copies of each key in the cluster (1 on a single node): the largest and the default from",
                    point(cluster.map(ClusterSource::replicationFactor).orElse(1))));
            http(out);
            engine(out, engine.get());
            cluster.ifPresent(c -> cluster(out, c));
            out.add(gauge(
                    "ringbase_netty_direct_memory_used_bytes",
                    "Direct memory held by Netty's buffers (capped by -Dio.netty.maxDirectMemory)",
                    point(io.netty.util.internal.PlatformDependent.usedDirectMemory())));
            return new MetricSnapshots(out);
        }

        private void http(List<MetricSnapshot> out) {
            CounterSnapshot.Builder counts = CounterSnapshot.builder()
                    .name("ringbase_http_requests")
                    .help("HTTP requests answered, by endpoint, method and status");
            HistogramSnapshot.Builder latency = HistogramSnapshot.builder()
                    .name("ringbase_http_request_duration_seconds")
                    .help("Time from a request's start (decoded) to its response written, by endpoint and method");
            double[] bounds = new double[LatencyHistogram.BOUNDS_NANOS.length + 1];
            for (int i = 0; i < LatencyHistogram.BOUNDS_NANOS.length; i++) {
                bounds[i] = LatencyHistogram.BOUNDS_NANOS[i] / 1e9;
            }
            bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
            List<String> endpoints = requests.endpoints();
            for (int e = 0; e < endpoints.size(); e++) {
                for (int m = 0; m < RequestMetrics.METHODS.size(); m++) {
                    String method = RequestMetrics.METHODS.get(m);
                    for (int s = 0; s <= RequestMetrics.STATUSES.length; s++) {
                        long n = requests.requests(e, m, s);
                        if (n > 0) {
                            counts.dataPoint(counterPoint(
                                    n,
                                    "endpoint",
                                    endpoints.get(e),
                                    "method",
                                    method,
                                    "status",
                                    RequestMetrics.statusLabel(s)));
                        }
                    }
                    LatencyHistogram.Snapshot h = requests.latency(e, m).snapshot();
                    if (h.count() > 0) {
                        latency.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                                .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, h.counts()))
                                .sum(h.sumNanos() / 1e9)
                                .labels(Labels.of("endpoint", endpoints.get(e), "method", method))
                                .build());
                    }
                }
            }
            out.add(counts.build());
            out.add(latency.build());
        }

        private static void engine(List<MetricSnapshot> out, EngineStats s) {
            out.add(gauge(
                    "ringbase_memtable_bytes",
                    "Native memory of the active and switched-out memtables",
                    point(s.memtableBytes())));
            GaugeSnapshot.Builder tables = GaugeSnapshot.builder()
                    .name("ringbase_sstables")
                    .help("Live SSTables by size tier (0: the smallest)");
            GaugeSnapshot.Builder tableBytes =
                    GaugeSnapshot.builder().name("ringbase_sstable_bytes").help("Bytes of live SSTables by size tier");
            for (EngineStats.Tier t : s.tiers()) {
                tables.dataPoint(point(t.tables(), "tier", Integer.toString(t.tier())));
                tableBytes.dataPoint(point(t.bytes(), "tier", Integer.toString(t.tier())));
            }
            out.add(tables.build());
            out.add(tableBytes.build());
            out.add(counter("ringbase_flushes", "Memtables flushed to SSTables", s.flushes()));
            out.add(counter(
                    "ringbase_flush_bytes",
                    "Bytes flushed: memtable bytes in, SSTable bytes out",
                    s.flushBytesIn(),
                    "direction",
                    "in",
                    s.flushBytesOut(),
                    "direction",
                    "out"));
            out.add(counter("ringbase_compactions", "Compactions finished", s.compactions()));
            out.add(counter(
                    "ringbase_compaction_bytes",
                    "SSTable bytes compactions read (in) and wrote (out)",
                    s.compactionBytesIn(),
                    "direction",
                    "in",
                    s.compactionBytesOut(),
                    "direction",
                    "out"));
            out.add(counter("ringbase_wal_appends", "WAL records appended", s.walAppends()));
            out.add(counter("ringbase_wal_appended_bytes", "WAL bytes appended", s.walBytes()));
            out.add(counter("ringbase_wal_writes", "WAL write() calls (one per group-commit batch)", s.walWrites()));
            out.add(counter("ringbase_wal_syncs", "WAL fsyncs", s.walSyncs()));
            out.add(counter("ringbase_wal_sync_seconds", "Time spent in WAL fsyncs", s.walSyncNanos() / 1e9));
            out.add(counter("ringbase_write_stalls", "Writes that waited for a flush to make room", s.writeStalls()));
            out.add(counter(
                    "ringbase_write_stall_seconds", "Time writes waited for flushes", s.writeStallNanos() / 1e9));
            out.add(counter(
                    "ringbase_disk_errors",
                    "Failed flushes, compactions and WAL writes or fsyncs (see the log)",
                    s.diskErrors()));
            out.add(counter(
                    "ringbase_quarantined_sstables",
                    "SSTables compaction found damaged and moved to quarantine/ (see the log)",
                    s.quarantinedTables()));
            out.add(counter(
                    "ringbase_block_cache_hits",
                    "Point reads of a compressed SSTable block served from the block cache",
                    s.blockCacheHits()));
            out.add(counter(
                    "ringbase_block_cache_misses",
                    "Point reads of a compressed SSTable block that had to decompress it",
                    s.blockCacheMisses()));
            out.add(gauge(
                    "ringbase_sstables_read_with_pread",
                    "Live SSTables whose point reads use pread: reads through their mapping waited for the disk",
                    point(s.preadTables())));
            out.add(gauge(
                    "ringbase_sstable_pinned_bytes",
                    "Native memory holding live SSTables' indexes and Bloom filters, bytes (--index-filter-memory)",
                    point(s.pinnedSectionBytes())));
        }

        private void cluster(List<MetricSnapshot> out, ClusterSource cluster) {
            List<ClusterSource.Peer> peers = cluster.peers();
            GaugeSnapshot.Builder up = GaugeSnapshot.builder()
                    .name("ringbase_peer_up")
                    .help("Whether the failure detector holds the peer up (1) or down (0)");
            GaugeSnapshot.Builder slow = GaugeSnapshot.builder()
                    .name("ringbase_peer_slow")
                    .help("Whether the peer's last data calls all timed out (1): reads go to other replicas first");
            GaugeSnapshot.Builder lastAnswer = GaugeSnapshot.builder()
                    .name("ringbase_peer_last_answer_timestamp_seconds")
                    .help("Unix time of the peer's last answer to any call (0: none yet)");
            CounterSnapshot.Builder calls = CounterSnapshot.builder()
                    .name("ringbase_replica_calls")
                    .help("Calls sent to the peer (replica reads and writes, batches, scans, probes, repair, hints)");
            CounterSnapshot.Builder failures = CounterSnapshot.builder()
                    .name("ringbase_replica_call_failures")
                    .help("Calls to the peer that got no answer: timeout, unreachable (no connection) or failed");
            int upCount = 0;
            for (ClusterSource.Peer p : peers) {
                upCount += p.up() ? 1 : 0;
                up.dataPoint(point(p.up() ? 1 : 0, "peer", p.url()));
                slow.dataPoint(point(p.slow() ? 1 : 0, "peer", p.url()));
                lastAnswer.dataPoint(point(p.calls().lastAnswerMs() / 1000.0, "peer", p.url()));
                calls.dataPoint(counterPoint(p.calls().calls(), "peer", p.url()));
                failures.dataPoint(counterPoint(p.calls().timeouts(), "peer", p.url(), "reason", "timeout"));
                failures.dataPoint(counterPoint(p.calls().unreachable(), "peer", p.url(), "reason", "unreachable"));
                failures.dataPoint(counterPoint(p.calls().failed(), "peer", p.url(), "reason", "failed"));
            }
            out.add(up.build());
            out.add(slow.build());
            out.add(gauge("ringbase_peers_up", "Other nodes the failure detector holds up", point(upCount)));
            out.add(gauge("ringbase_peers", "Other nodes in the cluster", point(peers.size())));
            out.add(lastAnswer.build());
            out.add(calls.build());
            out.add(failures.build());

            HintStats h = cluster.hints();
            out.add(gauge("ringbase_hints_pending", "Hints stored and not yet delivered", point(h.pendingHints())));
            out.add(gauge("ringbase_hints_pending_bytes", "Bytes of pending hints", point(h.pendingBytes())));
            out.add(gauge("ringbase_hints_queued", "Hints accepted but not yet stored", point(h.queued())));
            out.add(counter("ringbase_hints_stored", "Hints written to the hint store", h.stored()));
            out.add(counter("ringbase_hints_delivered", "Hints acknowledged by their target", h.delivered()));
            CounterSnapshot.Builder dropped = CounterSnapshot.builder()
                    .name("ringbase_hints_dropped")
                    .help("Hints dropped (repair catches up), by reason");
            dropped.dataPoint(counterPoint(h.droppedAge(), "reason", "age"));
            dropped.dataPoint(counterPoint(h.droppedBytes(), "reason", "bytes"));
            dropped.dataPoint(counterPoint(h.droppedOversize(), "reason", "oversize"));
            dropped.dataPoint(counterPoint(h.droppedQueueFull(), "reason", "queue_full"));
            dropped.dataPoint(counterPoint(h.droppedWriteError(), "reason", "write_error"));
            out.add(dropped.build());
            out.add(counter("ringbase_read_repairs", "Read-repair writes started", cluster.readRepairs()));
            out.add(counter(
                    "ringbase_speculative_reads",
                    "Reads sent to one more replica because the speculative retry delay passed",
                    cluster.speculativeReads()));
            CounterSnapshot.Builder ops = CounterSnapshot.builder()
                    .name("ringbase_coordinator_replica_ops")
                    .help("Replica reads, version reads and writes of requests this node coordinated, by where"
                            + " the replica was: this node (local) or another (remote, a network round trip)");
            ops.dataPoint(counterPoint(cluster.localReplicaOps(), "replica", "local"));
            ops.dataPoint(counterPoint(cluster.remoteReplicaOps(), "replica", "remote"));
            out.add(ops.build());
            out.add(counter(
                    "ringbase_write_restamps",
                    "One-round quorum writes sent again above a newer version every replica held",
                    cluster.writesRestamped()));
            out.add(counter(
                    "ringbase_write_splits",
                    "One-round quorum writes failed as possibly applied: taken by some replicas, newer on others",
                    cluster.writesSplit()));
            out.add(counter(
                    "ringbase_cas_rounds",
                    "Paxos rounds (prepare phases) of this node's compare-and-sets",
                    cluster.casRounds()));
            out.add(counter(
                    "ringbase_cas_contended",
                    "Compare-and-set rounds that started over: ballot lost to another coordinator, or too few answers",
                    cluster.casContended()));

            GaugeSnapshot.Builder state = GaugeSnapshot.builder()
                    .name("ringbase_node_state")
                    .help("This node's state (1 for the current one): NORMAL answers reads; PENDING and REPLACING"
                            + " (a new or wiped data directory streaming its data back) answer none");
            for (NodeState st : NodeState.values()) {
                state.dataPoint(point(cluster.identity().state() == st ? 1 : 0, "state", st.name()));
            }
            out.add(state.build());
            cluster.elastic().ifPresent(e -> {
                out.add(gauge(
                        "ringbase_metadata_epoch",
                        "The newest cluster metadata epoch this node knows",
                        point(e.epoch())));
                out.add(gauge(
                        "ringbase_membership_change_active",
                        "Whether this node drives a membership change (join, replace, decommission, rebuild) that is"
                                + " under way (1) or not (0)",
                        point(
                                e.changePhase().equals("waiting")
                                                || e.changePhase().equals("streaming")
                                                || e.changePhase().equals("finishing")
                                        ? 1
                                        : 0)));
                out.add(gauge(
                        "ringbase_streaming_entries",
                        "Entries streamed by this node's current or last membership change",
                        point(e.streamedEntries())));
                out.add(gauge(
                        "ringbase_streaming_bytes",
                        "Bytes of entries streamed by this node's current or last membership change",
                        point(e.streamedBytes())));
                out.add(gauge(
                        "ringbase_streaming_streams_done",
                        "Streams of this node's current or last membership change that finished",
                        point(e.streamsDone())));
                out.add(gauge(
                        "ringbase_streaming_streams_total",
                        "Streams of this node's current or last membership change",
                        point(e.streamsTotal())));
            });
            RepairStatus r = cluster.repair();
            RepairStatus.Run run = r.progress();
            out.add(gauge(
                    "ringbase_repair_running",
                    "Whether an anti-entropy repair runs (1) or not (0)",
                    point(r.state() == RepairStatus.State.RUNNING ? 1 : 0)));
            out.add(gauge(
                    "ringbase_repair_ranges_done",
                    "Ranges finished by the current (or last) repair",
                    point(run.rangesDone())));
            out.add(gauge(
                    "ringbase_repair_ranges_failed",
                    "Ranges failed in the current (or last) repair",
                    point(run.rangesFailed())));
            out.add(gauge(
                    "ringbase_repair_ranges_total",
                    "Ranges of the current (or last) repair (peers x 16)",
                    point(run.rangesTotal())));
            out.add(gauge(
                    "ringbase_repair_keys",
                    "Keys streamed by the current (or last) repair",
                    point(run.keysReceived(), "direction", "received"),
                    point(run.keysSent(), "direction", "sent")));
            RepairStatus.Run last = r.lastRun();
            out.add(gauge(
                    "ringbase_repair_last_finished_timestamp_seconds",
                    "Unix time the last repair finished (0: none since start), labelled by how it ended",
                    point(
                            last == null ? 0 : last.finishedAtMs() / 1000.0,
                            "outcome",
                            last == null || last.outcome() == null
                                    ? "none"
                                    : last.outcome().name().toLowerCase(java.util.Locale.ROOT))));
        }

        private static GaugeSnapshot gauge(String name, String help, GaugeSnapshot.GaugeDataPointSnapshot... points) {
            GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
            for (GaugeSnapshot.GaugeDataPointSnapshot p : points) {
                b.dataPoint(p);
            }
            return b.build();
        }

        private static GaugeSnapshot.GaugeDataPointSnapshot point(double value, String... labels) {
            return GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .value(value)
                    .labels(Labels.of(labels))
                    .build();
        }

        /** Samples are doubles: exact for counts below 2^53, which these stay far below. */
        private static GaugeSnapshot.GaugeDataPointSnapshot point(long value, String... labels) {
            return point((double) value, labels);
        }

        private static CounterSnapshot.CounterDataPointSnapshot counterPoint(double value, String... labels) {
            return CounterSnapshot.CounterDataPointSnapshot.builder()
                    .value(value)
                    .labels(Labels.of(labels))
                    .build();
        }

        /** Samples are doubles: exact for counts below 2^53, which these stay far below. */
        private static CounterSnapshot.CounterDataPointSnapshot counterPoint(long value, String... labels) {
            return counterPoint((double) value, labels);
        }

        /** A counter without labels. */
        private static CounterSnapshot counter(String name, String help, double value) {
            return CounterSnapshot.builder()
                    .name(name)
                    .help(help)
                    .dataPoint(counterPoint(value))
                    .build();
        }

        /** A counter without labels, of a count. */
        private static CounterSnapshot counter(String name, String help, long value) {
            return CounterSnapshot.builder()
                    .name(name)
                    .help(help)
                    .dataPoint(counterPoint(value))
                    .build();
        }

        /** A counter with two points of one label. */
        private static CounterSnapshot counter(
                String name,
                String help,
                long v1,
                String label1,
                String value1,
                long v2,
                String label2,
                String value2) {
            return CounterSnapshot.builder()
                    .name(name)
                    .help(help)
                    .dataPoint(counterPoint(v1, label1, value1))
                    .dataPoint(counterPoint(v2, label2, value2))
                    .build();
        }
    }
}
