package io.ringbase.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Batching of replica calls, against a stand-in replica server that records every request. */
@IntegrationTest
class ReplicaBatcherTest {

    /** Op counts of the batch requests the server got, and the paths of the other requests. */
    final List<Integer> batches = new CopyOnWriteArrayList<>();

    final List<Integer> batchBytes = new CopyOnWriteArrayList<>();
    final List<String> singles = new CopyOnWriteArrayList<>();
    volatile int batchStatus = 200;
    /** Operations on this key fail on the stand-in replica; reads of {@link #tooLargeKey} are answered "too large". */
    volatile String failingKey = "";

    volatile String tooLargeKey = "";
    HttpServer server;
    ReplicaClient client;
    RemoteReplica replica;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/internal/v0/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            byte[] answer;
            int status;
            if (path.equals(InternalProtocol.BATCH)) {
                List<ReplicaBatch.Op> ops = ReplicaBatch.decodeOps(body);
                batches.add(ops.size());
                batchBytes.add(body.length);
                List<ReplicaBatch.Result> results = new ArrayList<>();
                for (ReplicaBatch.Op op : ops) {
                    byte[] k = switch (op) {
                        case ReplicaBatch.Write w -> w.entry().key();
                        case ReplicaBatch.Read r -> r.key();
                        case ReplicaBatch.QueryVersion q -> q.key();
                    };
                    String key = new String(k, StandardCharsets.UTF_8);
                    if (key.equals(failingKey)) {
                        results.add(new ReplicaBatch.Failed("IOException: disk on fire"));
                        continue;
                    }
                    results.add(
                            switch (op) {
                                // a write "loses" to a version 1 above its own; a read finds its key with version 42
                                case ReplicaBatch.Write w ->
                                    new ReplicaBatch.Written(w.entry().version() + 1);
                                case ReplicaBatch.Read r when key.equals(tooLargeKey) -> new ReplicaBatch.TooLarge();
                                case ReplicaBatch.Read r -> new ReplicaBatch.Found(Entry.value(r.key(), 42, r.key()));
                                // a version query finds version 44, except for keys starting with "none"
                                case ReplicaBatch.QueryVersion q
                                when key.startsWith("none") -> new ReplicaBatch.Found(null);
                                case ReplicaBatch.QueryVersion q -> new ReplicaBatch.Written(44);
                            });
                }
                status = batchStatus;
                answer =
                        status == 200 ? ReplicaBatch.encodeResults(results) : "broken".getBytes(StandardCharsets.UTF_8);
            } else if (exchange.getRequestMethod().equals("GET")) { // a read alone: version 43
                singles.add("GET " + path);
                String hex = exchange.getRequestURI().getQuery().substring("id=".length());
                byte[] k = java.util.HexFormat.of().parseHex(hex);
                status = 200;
                answer = InternalProtocol.encode(List.of(Entry.value(k, 43, k)));
            } else {
                singles.add(exchange.getRequestMethod() + " " + path);
                Entry e = InternalProtocol.decode(body).getFirst();
                status = 201;
                answer = Long.toString(e.version()).getBytes(StandardCharsets.US_ASCII);
            }
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        NodeId node = new NodeId(1, "127.0.0.1", server.getAddress().getPort());
        client = new ReplicaClient(ReplicaClient.ClientConfig.defaults(5_000), RequestSigner.NONE);
        replica = new RemoteReplica(node, client);
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void versionQueriesAreBatchedOnAnEventLoopAndSentAsABatchOfOneElsewhere() throws Exception {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        client.loops()
                .get(0)
                .submit(() -> {
                    futures.add(replica.version(key(1)));
                    futures.add(replica.version("none".getBytes(StandardCharsets.UTF_8)));
                    futures.add(replica.version(key(2)));
                })
                .get(5, TimeUnit.SECONDS);
        assertThat(futures.get(0).get(5, TimeUnit.SECONDS)).isEqualTo(44);
        assertThat(futures.get(1).get(5, TimeUnit.SECONDS))
                .isEqualTo(io.ringbase.cluster.replication.Replica.NO_VERSION);
        assertThat(futures.get(2).get(5, TimeUnit.SECONDS)).isEqualTo(44);
        assertThat(batches).containsExactly(3);
        assertThat(replica.version(key(3)).get(5, TimeUnit.SECONDS))
                .as("off a loop")
                .isEqualTo(44);
        assertThat(replica.version("none-2".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS))
                .isEqualTo(io.ringbase.cluster.replication.Replica.NO_VERSION);
        assertThat(batches).containsExactly(3, 1, 1);
        assertThat(singles).isEmpty();
        failingKey = "k5";
        assertThatThrownBy(() -> replica.version(key(5)).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(ReplicaException.Failed.class)
                .hasMessageContaining("disk on fire");
    }

    /** Makes the calls of {@code n} requests in one turn of the client's first event loop. */
    List<CompletableFuture<?>> inOneLoopTurn(int writes, int reads) throws Exception {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        client.loops()
                .get(0)
                .submit(() -> {
                    for (int i = 0; i < writes; i++) {
                        futures.add(replica.writeChecked(Entry.value(key(i), 100 + i, key(i))));
                    }
                    for (int i = 0; i < reads; i++) {
                        futures.add(replica.read(key(i)));
                    }
                })
                .get(5, TimeUnit.SECONDS);
        return futures;
    }

    @Test
    void callsOfOneLoopTurnTravelAsOneBatchAndGetTheirOwnAnswers() throws Exception {
        List<CompletableFuture<?>> futures = inOneLoopTurn(10, 5);
        for (int i = 0; i < 10; i++) {
            assertThat(futures.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(101L + i);
        }
        for (int i = 0; i < 5; i++) {
            Entry e = (Entry) futures.get(10 + i).get(5, TimeUnit.SECONDS);
            assertThat(e.key()).isEqualTo(key(i));
            assertThat(e.version()).isEqualTo(42);
        }
        assertThat(batches).containsExactly(15);
        assertThat(singles).isEmpty();
    }

    @Test
    void aFullBatchIsSentAtOnceAndTheRestFollows() throws Exception {
        List<CompletableFuture<?>> futures = inOneLoopTurn(ReplicaBatcher.MAX_OPS + 36, 0);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(batches).containsExactlyInAnyOrder(ReplicaBatcher.MAX_OPS, 36);
    }

    @Test
    void callsFromOtherThreadsAreNotBatched() throws Exception {
        assertThat(replica.writeChecked(Entry.value(key(1), 7, key(1))).get(5, TimeUnit.SECONDS))
                .isEqualTo(7L);
        assertThat(batches).isEmpty();
        assertThat(singles).containsExactly("PUT " + InternalProtocol.ENTRY);
    }

    @Test
    void aFailedBatchFailsEveryCallInIt() throws Exception {
        batchStatus = 500;
        List<CompletableFuture<?>> futures = inOneLoopTurn(3, 2);
        for (CompletableFuture<?> f : futures) {
            assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(ReplicaException.Failed.class)
                    .hasMessageContaining("500");
        }
        assertThat(batches).containsExactly(5);
    }

    @Test
    void aLargeWriteTravelsAloneAndTheOthersStillBatch() throws Exception {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        client.loops()
                .get(0)
                .submit(() -> {
                    for (int i = 0; i < 5; i++) {
                        futures.add(replica.writeChecked(Entry.value(key(i), 100 + i, key(i))));
                    }
                    futures.add(replica.writeChecked(Entry.value(key(99), 500, new byte[ReplicaBatch.MAX_OP_BYTES])));
                })
                .get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(futures.getLast().getNow(null)).isEqualTo(500L);

        assertThat(batches).containsExactly(5);
        assertThat(singles).containsExactly("PUT " + InternalProtocol.ENTRY);
    }

    @Test
    void aBatchNeverPassesItsByteBound() throws Exception {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        client.loops()
                .get(0)
                .submit(() -> {
                    for (int i = 0; i < 20; i++) { // 20 x 40 KiB: three batches' worth
                        futures.add(replica.writeChecked(Entry.value(key(i), 100 + i, new byte[40 * 1024])));
                    }
                })
                .get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(batches.stream().mapToInt(Integer::intValue).sum()).isEqualTo(20);
        assertThat(batches.size()).isGreaterThanOrEqualTo(4);
        assertThat(batchBytes).allSatisfy(b -> assertThat(b).isLessThanOrEqualTo(ReplicaBatch.MAX_REQUEST_BYTES));
        assertThat(singles).isEmpty();
    }

    @Test
    void anOperationTheReplicaFailedFailsAloneAndTheOthersStand() throws Exception {
        failingKey = "k2";
        List<CompletableFuture<?>> futures = inOneLoopTurn(5, 0);
        for (int i = 0; i < 5; i++) {
            CompletableFuture<?> f = futures.get(i);
            if (i == 2) {
                assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS))
                        .cause()
                        .isInstanceOf(ReplicaException.Failed.class)
                        .hasMessageContaining("disk on fire");
            } else {
                assertThat(f.get(5, TimeUnit.SECONDS)).isEqualTo(101L + i);
            }
        }
    }

    @Test
    void aReadAnsweredTooLargeIsReadAlone() throws Exception {
        tooLargeKey = "k1";
        List<CompletableFuture<?>> futures = inOneLoopTurn(0, 3);
        assertThat(((Entry) futures.get(0).get(5, TimeUnit.SECONDS)).version()).isEqualTo(42);
        assertThat(((Entry) futures.get(1).get(5, TimeUnit.SECONDS)).version())
                .as("read alone")
                .isEqualTo(43);
        assertThat(((Entry) futures.get(2).get(5, TimeUnit.SECONDS)).version()).isEqualTo(42);
        assertThat(singles).containsExactly("GET " + InternalProtocol.ENTRY);
    }
}
