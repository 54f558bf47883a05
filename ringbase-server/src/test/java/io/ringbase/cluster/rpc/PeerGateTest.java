package io.ringbase.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.membership.NodeState;
import io.ringbase.cluster.paxos.PaxosAcceptor;
import io.ringbase.cluster.paxos.PaxosAdmission;
import io.ringbase.cluster.paxos.PaxosMessages;
import io.ringbase.cluster.paxos.PaxosStore;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.replication.ReadGate;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replica server's membership check, read gate and hello, on an in-memory engine. */
class PeerGateTest {

    private static final List<String> URLS = List.of("http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3");
    private static final Topology TOPOLOGY = Topology.parse(URLS, URLS.get(0));
    private static final Membership MINE = Membership.of("c", TOPOLOGY);

    private final InMemoryEngine engine = new InMemoryEngine();
    private final AtomicReference<@Nullable String> readRefusal = new AtomicReference<>();
    private final Map<String, Long> remembered = new HashMap<>();

    private final ReplicaServer server = new ReplicaServer(
            engine,
            new HybridLogicalClock(),
            RequestSigner.NONE,
            TimeSource.SYSTEM,
            () -> Placement.of(TOPOLOGY),
            new RepairSource(engine, new Ring(TOPOLOGY), TOPOLOGY.self(), 3),
            PeerGate.of(URLS.get(0), MINE, readRefusal::get, (url, incarnation, state) -> {
                if (state == NodeState.NORMAL) {
                    remembered.put(url, incarnation);
                }
                Long r = remembered.get(url);
                return r == null ? HelloSender.Answer.NONE : new HelloSender.Answer(r, true);
            }),
            MetadataEndpoint.NONE);

    private static ReplicaServer.RpcRequest request(
            String method, String path, Map<String, String> params, @Nullable String membership, byte[] body) {
        return new ReplicaServer.RpcRequest() {
            @Override
            public String method() {
                return method;
            }

            @Override
            public String path() {
                return path;
            }

            @Override
            public String uri() {
                return path;
            }

            @Override
            public @Nullable String param(String name) {
                return params.get(name);
            }

            @Override
            public @Nullable String header(String name) {
                return name.equals(InternalProtocol.MEMBERSHIP) ? membership : null;
            }

            @Override
            public byte[] body() {
                return body;
            }
        };
    }

    private ReplicaServer.Reply call(
            String method, String path, Map<String, String> params, @Nullable String header, byte[] body)
            throws Exception {
        return (ReplicaServer.Reply) server.handle(request(method, path, params, header, body), true);
    }

    private ReplicaServer.Reply get(String key, @Nullable String header) throws Exception {
        return call(
                "GET",
                InternalProtocol.ENTRY,
                Map.of("id", InternalProtocol.hex(key.getBytes(StandardCharsets.UTF_8))),
                header,
                new byte[0]);
    }

    private static String text(ReplicaServer.Reply r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aRequestOfAnotherMembershipIs409NamingThisNodesAndNothingIsServed() throws Exception {
        engine.apply(Entry.value("k".getBytes(StandardCharsets.UTF_8), 1, "v".getBytes(StandardCharsets.UTF_8)));
        assertThat(get("k", MINE.digestHex()).status()).isEqualTo(200);

        Membership other = new Membership("c", List.of(URLS.get(1), URLS.get(0), URLS.get(2)), 3);
        ReplicaServer.Reply refused = get("k", other.digestHex());
        assertThat(refused.status()).isEqualTo(409);
        assertThat(text(refused))
                .contains("membership mismatch", MINE.describe(), other.digestHex())
                .doesNotContain("\nv");
        assertThat(get("k", null).status()).isEqualTo(409);

        byte[] write = InternalProtocol.encode(
                List.of(Entry.value("w".getBytes(StandardCharsets.UTF_8), 2, "x".getBytes(StandardCharsets.UTF_8))));
        assertThat(call("PUT", InternalProtocol.ENTRY, Map.of(), other.digestHex(), write)
                        .status())
                .isEqualTo(409);
        assertThat(engine.get("w".getBytes(StandardCharsets.UTF_8))).isNull();

        // a ping serves no data: answered whatever its header
        assertThat(call("GET", InternalProtocol.PING, Map.of(), null, new byte[0])
                        .status())
                .isEqualTo(200);
        assertThatThrownBy(() -> call("GET", "/internal/v0/nope", Map.of(), null, new byte[0]))
                .isInstanceOf(RpcException.class)
                .hasMessageContaining("unknown internal path");
    }

    @Test
    void aNodeThatRefusesReadsAnswers503ToReadsAndStillTakesWrites() throws Exception {
        engine.apply(Entry.value("k".getBytes(StandardCharsets.UTF_8), 1, "v".getBytes(StandardCharsets.UTF_8)));
        readRefusal.set("node is REPLACING");
        ReplicaServer.Reply r = get("k", MINE.digestHex());
        assertThat(r.status()).isEqualTo(503);
        assertThat(text(r)).contains("REPLACING");
        assertThat(call("GET", InternalProtocol.ENTRIES, Map.of("start", ""), MINE.digestHex(), new byte[0])
                        .status())
                .isEqualTo(503);

        byte[] batch = ReplicaBatch.encodeOps(List.of(
                new ReplicaBatch.Read("k".getBytes(StandardCharsets.UTF_8)),
                new ReplicaBatch.QueryVersion("k".getBytes(StandardCharsets.UTF_8)),
                new ReplicaBatch.Write(
                        Entry.value("w".getBytes(StandardCharsets.UTF_8), 2, "x".getBytes(StandardCharsets.UTF_8)))));
        List<ReplicaBatch.Result> results = ReplicaBatch.decodeResults(
                call("POST", InternalProtocol.BATCH, Map.of(), MINE.digestHex(), batch)
                        .body(),
                3);
        assertThat(results.get(0)).isInstanceOf(ReplicaBatch.Failed.class);
        assertThat(results.get(1)).isInstanceOf(ReplicaBatch.Failed.class);
        assertThat(results.get(2)).isInstanceOf(ReplicaBatch.Written.class);
        assertThat(engine.get("w".getBytes(StandardCharsets.UTF_8))).isNotNull();

        readRefusal.set(null);
        assertThat(get("k", MINE.digestHex()).status()).isEqualTo(200);
    }

    @Test
    void aNodeThatRefusesReadsRefusesEveryPaxosCall(@TempDir Path dir) throws Exception {
        try (PaxosStore store = PaxosStore.open(dir, System::currentTimeMillis)) {
            server.withPaxos(new PaxosAcceptor(
                    engine,
                    store,
                    new HybridLogicalClock(),
                    new PaxosAdmission(() -> Placement.of(TOPOLOGY), readRefusal::get, ReadGate.OPEN)));
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            byte[] prepare = PaxosMessages.encode(new PaxosMessages.Prepare(key, new HybridLogicalClock(2).now()));

            readRefusal.set("node is REPLACING");
            ReplicaServer.Reply refused = call("POST", InternalProtocol.PAXOS, Map.of(), MINE.digestHex(), prepare);
            assertThat(refused.status()).isEqualTo(503);
            assertThat(text(refused)).contains("Paxos", "REPLACING");
            assertThat(server.paxosRefusal()).isNull(); // it takes Paxos calls, and refuses this one

            readRefusal.set(null);
            ReplicaServer.Reply promised = call("POST", InternalProtocol.PAXOS, Map.of(), MINE.digestHex(), prepare);
            assertThat(promised.status()).isEqualTo(200);
            assertThat(((PaxosMessages.Promise) PaxosMessages.decodeReply(promised.body())).ok())
                    .isTrue();
        }
    }

    @Test
    void aHelloIsAnsweredWithWhatThisNodeRemembers() throws Exception {
        byte[] pending = (URLS.get(1) + " 00000000000000ff P").getBytes(StandardCharsets.UTF_8);
        ReplicaServer.Reply r = call("POST", InternalProtocol.HELLO, Map.of(), MINE.digestHex(), pending);
        assertThat(InternalProtocol.parseHelloAnswer(r.body())).isEqualTo(HelloSender.Answer.NONE);
        byte[] normal = (URLS.get(1) + " 00000000000000ff N").getBytes(StandardCharsets.UTF_8);
        r = call("POST", InternalProtocol.HELLO, Map.of(), MINE.digestHex(), normal);
        assertThat(InternalProtocol.parseHelloAnswer(r.body())).isEqualTo(new HelloSender.Answer(0xff, true));
        assertThatThrownBy(() -> call(
                        "POST",
                        InternalProtocol.HELLO,
                        Map.of(),
                        MINE.digestHex(),
                        "garbage".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(RpcException.class)
                .hasMessageContaining("undecodable hello");
    }
}
