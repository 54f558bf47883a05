package io.ringbase.cluster.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.LocalCluster;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.cluster.rpc.RemoteReplica;
import io.ringbase.cluster.rpc.RemoteStreamPeer;
import io.ringbase.cluster.rpc.ReplicaClient;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming between two real nodes over the internal API ({@code POST /internal/v0/stream}): node 1
 * joins node 0 and receives the keys it gains, about 20,000 of 40,000, tombstones and expired entries
 * included; a session stopped part way resumes from its durable cursor; a source that restarts mid-stream
 * is retried; a plan naming another source is refused with 400.
 */
@IntegrationTest
@Timeout(180)
class StreamingClusterTest {

    static final int KEYS = 40_000;
    static final StreamOptions OPTIONS = StreamOptions.defaults()
            .withPageBytes(64 << 10)
            .withCheckpointBytes(256 << 10)
            .withRetries(8, 100, 1_000);

    @TempDir
    Path tmp;

    LocalCluster cluster;
    ReplicaClient client;
    NodeId n0;
    NodeId n1;
    StreamPlan plan;
    List<String> wanted;
    final ExecutorService runner = Executors.newSingleThreadExecutor();

    @BeforeEach
    void start() throws Exception {
        cluster = new LocalCluster(tmp, 2);
        Topology topology = cluster.node(0).config().topology();
        n0 = topology.nodes().get(0);
        n1 = topology.nodes().get(1);
        client = new ReplicaClient(
                ReplicaClient.ClientConfig.defaults(10_000),
                RequestSigner.NONE,
                null,
                TimeSource.SYSTEM,
                Membership.of(Membership.DEFAULT_NAME, topology));
        plan = StreamFixture.join(11, n0, n1);
        // straight into node 0's engine: no replica write reaches node 1
        StreamFixture.fill(cluster.node(0).engine(), "s", KEYS, 100);
        wanted = StreamFixture.described(StreamFixture.wanted(cluster.node(0).engine(), plan));
        assertThat(wanted).hasSizeBetween(KEYS / 2 - 1_000, KEYS / 2 + 1_000);
    }

    @AfterEach
    void stop() throws Exception {
        runner.shutdownNow();
        assertThat(runner.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        client.close();
        cluster.close();
    }

    StreamPeer remote(NodeId node) {
        return new RemoteStreamPeer(new RemoteReplica(node, client), OPTIONS.callTimeoutMs());
    }

    StreamSession session(StreamPeer peer, StreamOptions options) {
        return new StreamSession(
                plan, peer, cluster.node(1).engine(), new HybridLogicalClock(), cluster.dataDir(1), options);
    }

    List<String> received() throws Exception {
        return StreamFixture.described(StreamFixture.all(cluster.node(1).engine()).stream()
                .filter(e -> new String(e.key(), StandardCharsets.UTF_8).startsWith("s-"))
                .toList());
    }

    @Test
    void theJoiningNodeReceivesEveryKeyItGainsAndNoOther() throws Exception {
        StreamSession session = session(remote(n0), OPTIONS);
        StreamProgress done = session.run();
        assertThat(done.done()).isTrue();
        assertThat(done.entries()).isEqualTo(wanted.size());
        assertThat(done.pages()).isGreaterThan(10);
        assertThat(done.elapsedMs()).isPositive().isEqualTo(session.progress().elapsedMs());
        assertThat(received()).isEqualTo(wanted);
        assertThat(received()).anyMatch(s -> s.endsWith("tombstone")).anyMatch(s -> !s.contains(" exp 0 "));
        assertThat(StreamCursor.read(StreamCursor.file(cluster.dataDir(1), n0)).done())
                .isTrue();
    }

    @Test
    void aSessionInterruptedPartWayResumesFromItsCursor() throws Exception {
        // slowed to 400 KB/s so that it is still running when interrupted
        StreamSession first = session(remote(n0), OPTIONS.withBytesPerSecond(400_000));
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("stream-session").start(() -> {
            try {
                first.run();
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        LocalCluster.await(
                Duration.ofSeconds(30), "ten pages", () -> first.progress().pages() >= 10);
        thread.interrupt();
        assertThat(thread.join(Duration.ofSeconds(30)))
                .as("the session stopped")
                .isTrue();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(first.progress().done()).isFalse();
        StreamCursor stopped = StreamCursor.read(StreamCursor.file(cluster.dataDir(1), n0));
        assertThat(stopped).isNotNull();
        assertThat(stopped.done()).isFalse();
        assertThat(stopped.entries()).isPositive().isLessThan(wanted.size());

        List<String> starts = new ArrayList<>();
        StreamPeer real = remote(n0);
        StreamPeer recording = new StreamPeer() {
            @Override
            public NodeId node() {
                return real.node();
            }

            @Override
            public CompletableFuture<EntryPage> entries(StreamPlan p, byte[] startKey, int maxBytes) {
                starts.add(HexFormat.of().formatHex(startKey));
                return real.entries(p, startKey, maxBytes);
            }
        };
        StreamProgress done = session(recording, OPTIONS).run();
        assertThat(starts.getFirst()).isEqualTo(HexFormat.of().formatHex(stopped.next()));
        assertThat(done.resumedEntries()).isEqualTo(stopped.entries());
        assertThat(done.entries()).isEqualTo(wanted.size());
        assertThat(received()).isEqualTo(wanted);
    }

    @Test
    void aSourceThatRestartsMidStreamIsRetriedAndNothingIsMissed() throws Exception {
        StreamSession session = session(remote(n0), OPTIONS.withBytesPerSecond(400_000));
        Future<StreamProgress> running = runner.submit(session::run);
        LocalCluster.await(
                Duration.ofSeconds(30), "ten pages", () -> session.progress().pages() >= 10);
        cluster.stop(0);
        cluster.start(0);
        StreamProgress done = running.get(120, TimeUnit.SECONDS);
        assertThat(done.done()).isTrue();
        assertThat(received()).isEqualTo(wanted);
    }

    @Test
    void aPlanNamingAnotherSourceOrNotDecodingIsRefusedWith400() throws Exception {
        StreamPlan backwards = StreamFixture.join(11, n1, n0);
        assertThatThrownBy(() ->
                        remote(n0).entries(backwards, new byte[0], 1 << 20).get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(StreamRefusedException.class)
                .hasMessageContaining("answered 400: stream plan names source " + n1 + ", this node is " + n0);
        // node 0 reached by another name: a session fails at once, asking no more than once
        NodeId alias = new NodeId(0, "localhost", n0.port());
        StreamPlan misnamed = StreamFixture.join(12, alias, n1);
        long started = System.nanoTime();
        assertThatThrownBy(() -> new StreamSession(
                                misnamed,
                                remote(alias),
                                cluster.node(1).engine(),
                                new HybridLogicalClock(),
                                cluster.dataDir(1),
                                OPTIONS)
                        .run())
                .isInstanceOf(StreamFailedException.class)
                .hasMessageContaining("refused the plan")
                .hasMessageContaining("this node is " + n0);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
        ReplicaClient.Response garbage = new RemoteReplica(n0, client)
                .call(HttpMethod.POST, InternalProtocol.STREAM + "?start=&max=100", new byte[40])
                .get(30, TimeUnit.SECONDS);
        assertThat(garbage.status()).isEqualTo(400);
        assertThat(new String(garbage.body(), StandardCharsets.UTF_8)).contains("stream plan checksum mismatch");
        ReplicaClient.Response get = new RemoteReplica(n0, client)
                .call(HttpMethod.GET, InternalProtocol.STREAM + "?start=&max=100", new byte[0])
                .get(30, TimeUnit.SECONDS);
        assertThat(get.status()).isEqualTo(405);
        Entry none = cluster.node(1).engine().get("s-00001".getBytes(StandardCharsets.UTF_8));
        assertThat(none).isNull();
    }
}
