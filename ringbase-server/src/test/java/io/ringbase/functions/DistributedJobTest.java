package io.ringbase.functions;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.ring.ShareAssignment;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.kv.LocalKeyValueService;
import io.ringbase.kv.Quorum;
import io.ringbase.storage.Entry;
import io.ringbase.storage.KeyFilter;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A distributed job over three simulated nodes that all read one engine (so every node's scan sees every
 * key, as the quorum-merged scan does): the shares, the pages and their cursors, and the hand-on when a
 * node stops answering after some pages, checked against the model: every key processed exactly once.
 */
@Timeout(60)
class DistributedJobTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 1000;

    private final InMemoryEngine engine = new InMemoryEngine();
    private final LocalKeyValueService kv =
            new LocalKeyValueService(engine, new HybridLogicalClock(), TimeSource.SYSTEM);
    private final ExecutorService peers = Executors.newFixedThreadPool(3);
    private Jobs jobs;
    private FakeCluster cluster;
    private final Map<String, String> model = new TreeMap<>();

    @BeforeEach
    void load() throws Exception {
        jobs = new Jobs(kv, TimeSource.SYSTEM, FunctionLimits.DEFAULTS, FunctionEngine.DEFAULT, 2);
        for (String fn : List.of("identity", "bytecount")) {
            jobs.store().put(fn, TestModules.wasm(fn));
        }
        for (int i = 0; i < KEYS; i++) {
            String key = String.format("key%05d", i);
            String value = "v" + i;
            kv.put(key.getBytes(UTF_8), MemorySegment.ofArray(value.getBytes(UTF_8)), Entry.NO_EXPIRY, new Quorum(1, 1))
                    .toCompletableFuture()
                    .get(5, TimeUnit.SECONDS);
            model.put(key, value);
        }
        cluster = new FakeCluster();
        jobs.distribute(cluster);
    }

    @AfterEach
    void close() {
        jobs.close();
        peers.shutdownNow();
    }

    /** Three nodes, replication factor 3; a node in {@link #failAfter} stops answering after that many pages. */
    private final class FakeCluster implements JobCluster {
        final Ring ring = new Ring(Topology.parse(List.of("http://a:1", "http://b:1", "http://c:1"), "http://a:1", 3));
        final Map<String, Integer> failAfter = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> pages = new ConcurrentHashMap<>();
        final Map<String, Long> keysBy = new ConcurrentHashMap<>();

        @Override
        public String self() {
            return "http://a:1";
        }

        @Override
        public long epoch() {
            return 0;
        }

        @Override
        public List<String> nodes() {
            return ring.nodes().stream().map(NodeId::toString).toList();
        }

        @Override
        public Set<String> down() {
            return Set.of();
        }

        @Override
        public int nodesNeeded() {
            return 2;
        }

        private List<NodeId> ids(java.util.Collection<String> urls) {
            return ring.nodes().stream()
                    .filter(n -> urls.contains(n.toString()))
                    .toList();
        }

        @Override
        public KeyFilter share(Set<String> down, List<String> path) {
            ShareAssignment a = new ShareAssignment(ring, 3, new HashSet<>(ids(down)));
            List<NodeId> p = new ArrayList<>();
            for (String u : path) {
                p.add(ids(List.of(u)).getFirst());
            }
            return key -> a.inShare(key, p);
        }

        @Override
        public boolean canHandOn(Set<String> down, List<String> path) {
            Set<String> gone = new HashSet<>(down);
            gone.addAll(path);
            return gone.size() < 3;
        }

        @Override
        public CompletableFuture<byte[]> call(String node, byte[] request, long timeoutMs) {
            int n = pages.computeIfAbsent(node, x -> new AtomicInteger()).getAndIncrement();
            Integer limit = failAfter.get(node);
            if (limit != null && n >= limit) {
                return CompletableFuture.failedFuture(new ShareFailedException(node, false, 0, "down", null));
            }
            return CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return jobs.runSharePage(request).get(30, TimeUnit.SECONDS);
                                } catch (Exception e) {
                                    throw new java.util.concurrent.CompletionException(e);
                                }
                            },
                            peers)
                    .thenApply(body -> {
                        keysBy.merge(node, SharePage.Reply.decode(body).keysSeen(), Long::sum);
                        return body;
                    });
        }
    }

    private DistributedJob start(String fn, ProcessMode mode) throws Exception {
        ProcessJob job = jobs.start(new ProcessRequest(fn, "key".getBytes(UTF_8), null, mode, OnError.STOP, null));
        DistributedJob d = jobs.distributed(job);
        assertThat(d).isNotNull();
        return d;
    }

    private static long count(JsonNode summary) {
        byte[] result = Base64.getDecoder().decode(summary.get("result").asText());
        return ByteBuffer.wrap(result).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** An update is written once, at its coordinator: a share page of one is refused, whoever asks. */
    @Test
    void aSharePageOfAnUpdateIsRefused() {
        SharePage.Request update = new SharePage.Request(
                "j",
                "identity",
                ProcessMode.UPDATE,
                OnError.STOP,
                "key".getBytes(UTF_8),
                null,
                Set.of(),
                List.of("http://b:1"),
                DistributedJob.PAGE_KEYS,
                "",
                0);
        assertThatThrownBy(() -> jobs.runSharePage(update.encode()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("update jobs run at their coordinator");
    }

    @Test
    void everyNodeRunsItsShareAndReduceCombinesThePartials() throws Exception {
        JsonNode summary =
                JSON.readTree(start("bytecount", ProcessMode.REDUCE).run().get(30, TimeUnit.SECONDS));
        assertThat(summary.get("state").asText()).isEqualTo("done");
        assertThat(summary.get("keysSeen").asLong()).isEqualTo(KEYS);
        assertThat(count(summary))
                .isEqualTo(model.values().stream().mapToLong(String::length).sum());
        assertThat(summary.get("resumed").asLong()).isZero();
        assertThat(cluster.keysBy.keySet()).containsExactlyInAnyOrder("http://b:1", "http://c:1");
        assertThat(cluster.keysBy.values()).allMatch(n -> n > KEYS / 5);
        assertThat(jobs.running()).isEmpty();
        // every page took the function from the cache, by the module's hash, without reading the store
        long remotePages =
                cluster.pages.values().stream().mapToLong(AtomicInteger::get).sum();
        assertThat(jobs.store().cacheHits()).isGreaterThanOrEqualTo(remotePages).isPositive();
        // and every page after a share's first continued the scan the page before it left open
        assertThat(jobs.shareScans().reused()).isGreaterThanOrEqualTo(remotePages - 2);
    }

    @Test
    void aNodeThatStopsAnsweringHandsOnItsShareAndReduceCountsEveryKeyOnce() throws Exception {
        cluster.failAfter.put("http://b:1", 2);
        JsonNode summary =
                JSON.readTree(start("bytecount", ProcessMode.REDUCE).run().get(30, TimeUnit.SECONDS));
        assertThat(summary.get("state").asText()).isEqualTo("done");
        assertThat(summary.get("keysSeen").asLong()).isEqualTo(KEYS);
        assertThat(count(summary))
                .isEqualTo(model.values().stream().mapToLong(String::length).sum());
        assertThat(summary.get("resumed").asLong()).isEqualTo(1);
        assertThat(cluster.keysBy.get("http://b:1")).isEqualTo(2L * DistributedJob.PAGE_KEYS);
    }

    @Test
    void mapEmitsEveryKeyOnceWhenTwoNodesFailInTurn() throws Exception {
        cluster.failAfter.put("http://b:1", 1);
        cluster.failAfter.put("http://c:1", 3);
        EntryBatchSource out = start("identity", ProcessMode.MAP).mapOutput();
        List<Entry> all = new ArrayList<>();
        for (List<Entry> b = out.nextBatch(1 << 16).get(30, TimeUnit.SECONDS);
                !b.isEmpty();
                b = out.nextBatch(1 << 16).get(30, TimeUnit.SECONDS)) {
            all.addAll(b);
        }
        out.close();
        JsonNode summary = JSON.readTree(all.removeLast().value());
        Map<String, String> seen = new HashMap<>();
        for (Entry e : all) {
            assertThat(seen.put(new String(e.key(), UTF_8), new String(e.value(), UTF_8)))
                    .as("emitted twice")
                    .isNull();
        }
        assertThat(seen).isEqualTo(model);
        assertThat(summary.get("state").asText()).isEqualTo("done");
        assertThat(summary.get("keysSeen").asLong()).isEqualTo(KEYS);
        assertThat(summary.get("resumed").asLong()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aCancelledJobAsksNoFurtherPageAndSaysCancelled() throws Exception {
        ProcessJob job = jobs.start(
                new ProcessRequest("bytecount", "key".getBytes(UTF_8), null, ProcessMode.REDUCE, OnError.STOP, "c1"));
        DistributedJob d = jobs.distributed(job);
        assertThat(jobs.cancel("c1")).isTrue();
        JsonNode summary = JSON.readTree(d.run().get(30, TimeUnit.SECONDS));
        assertThat(summary.get("state").asText()).isEqualTo("cancelled");
        assertThat(summary.get("keysSeen").asLong()).isZero();
        assertThat(cluster.pages).isEmpty();
        assertThat(jobs.running()).isEmpty();
    }

    @Test
    void aFunctionReplacedAfterTheJobStartedFailsItRatherThanMixVersions() throws Exception {
        DistributedJob d = start("bytecount", ProcessMode.REDUCE);
        jobs.store().put("bytecount", TestModules.wasm("pace")); // also map and combine, another module
        CompletableFuture<byte[]> run = d.run();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> run.get(30, TimeUnit.SECONDS))
                .hasMessageContaining("was replaced since the job started");
    }

    @Test
    void aShareThatCannotBeHandedOnFailsTheJobInsteadOfSkippingKeys() throws Exception {
        cluster.failAfter.put("http://b:1", 0);
        cluster.failAfter.put("http://c:1", 0);
        JobCluster strict = new JobCluster() { // as the real one with a node believed down at the start
                    @Override
                    public String self() {
                        return cluster.self();
                    }

                    @Override
                    public long epoch() {
                        return 0;
                    }

                    @Override
                    public List<String> nodes() {
                        return cluster.nodes();
                    }

                    @Override
                    public Set<String> down() {
                        return Set.of();
                    }

                    @Override
                    public int nodesNeeded() {
                        return 1;
                    }

                    @Override
                    public KeyFilter share(Set<String> down, List<String> path) {
                        return cluster.share(down, path);
                    }

                    @Override
                    public boolean canHandOn(Set<String> down, List<String> path) {
                        return path.size() < 2;
                    }

                    @Override
                    public CompletableFuture<byte[]> call(String node, byte[] request, long timeoutMs) {
                        return cluster.call(node, request, timeoutMs);
                    }
                };
        jobs.distribute(strict);
        CompletableFuture<byte[]> run = start("bytecount", ProcessMode.REDUCE).run();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> run.get(30, TimeUnit.SECONDS))
                .hasMessageContaining("may have no replica left");
    }
}
