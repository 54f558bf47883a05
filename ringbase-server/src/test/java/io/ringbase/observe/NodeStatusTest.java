package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.hint.HintStats;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.membership.NodeState;
import io.ringbase.cluster.repair.RepairStatus;
import io.ringbase.cluster.rpc.PeerCallStats;
import io.ringbase.storage.EngineStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The shape of {@code GET /v0/status} (docs/http-api.md, "Status"): every field, in order, on a single
 * node and in a cluster, and strings that need escaping.
 */
class NodeStatusTest {

    static final ObjectMapper JSON = new ObjectMapper();

    static final EngineStats ENGINE = new EngineStats(
            1000,
            List.of(new EngineStats.Tier(0, 2, 300), new EngineStats.Tier(1, 1, 700)),
            3,
            0,
            0,
            4,
            0,
            0,
            5,
            0,
            0,
            6,
            0,
            7,
            0,
            8,
            0,
            0,
            0,
            0,
            0);

    private static List<String> fields(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void aSingleNodeHasEveryFieldAndNullsForTheCluster() throws Exception {
        NodeStatus status = new NodeStatus(
                () -> "http://localhost:8080",
                "1.2.3",
                "/data/dir \"quoted\"\n",
                () -> ENGINE,
                null,
                Optional.empty(),
                TimeSource.SYSTEM);
        JsonNode s = JSON.readTree(status.json());
        assertThat(fields(s))
                .containsExactly(
                        "node",
                        "version",
                        "startedAtMs",
                        "uptimeSeconds",
                        "dataDir",
                        "replicationFactor",
                        "requests",
                        "history",
                        "engine",
                        "peers",
                        "hints",
                        "readRepairs",
                        "speculativeReads",
                        "repair",
                        "membership");
        assertThat(s.path("membership").isNull()).isTrue();
        assertThat(s.path("node").textValue()).isEqualTo("http://localhost:8080");
        assertThat(s.path("version").textValue()).isEqualTo("1.2.3");
        assertThat(s.path("dataDir").textValue()).isEqualTo("/data/dir \"quoted\"\n");
        assertThat(s.path("replicationFactor").intValue())
                .as("a node alone holds one copy")
                .isEqualTo(1);
        assertThat(s.path("requests").isNull()).isTrue();
        assertThat(fields(s.path("engine")))
                .containsExactly(
                        "memtableBytes",
                        "sstables",
                        "sstableBytes",
                        "tiers",
                        "flushes",
                        "compactions",
                        "walAppends",
                        "walSyncs",
                        "writeStalls",
                        "diskErrors");
        JsonNode e = s.path("engine");
        assertThat(e.path("memtableBytes").longValue()).isEqualTo(1000);
        assertThat(e.path("sstables").intValue()).isEqualTo(3);
        assertThat(e.path("sstableBytes").longValue()).isEqualTo(1000);
        assertThat(e.path("tiers").toString())
                .isEqualTo("[{\"tier\":0,\"tables\":2,\"bytes\":300},{\"tier\":1,\"tables\":1,\"bytes\":700}]");
        assertThat(List.of(
                        e.path("flushes").longValue(),
                        e.path("compactions").longValue(),
                        e.path("walAppends").longValue(),
                        e.path("walSyncs").longValue(),
                        e.path("writeStalls").longValue(),
                        e.path("diskErrors").longValue()))
                .containsExactly(3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(s.path("peers").isArray()).isTrue();
        assertThat(s.path("peers").isEmpty()).isTrue();
        assertThat(s.path("hints").isNull()).isTrue();
        assertThat(s.path("readRepairs").longValue()).isZero();
        assertThat(s.path("repair").isNull()).isTrue();
    }

    @Test
    void requestFiguresHaveThreeDecimals() throws Exception {
        RequestMetrics requests = new RequestMetrics(List.of("entity"), List.of("entity"));
        String json = new NodeStatus(
                        () -> "http://a:8080", "1", "/d", () -> ENGINE, requests, Optional.empty(), TimeSource.SYSTEM)
                .json();
        JsonNode s = JSON.readTree(json);
        assertThat(fields(s.path("requests"))).containsExactly("perSecond", "p99Ms", "windowSeconds");
        assertThat(s.path("requests").path("perSecond").isNumber()).isTrue();
        assertThat(json).containsPattern("\"requests\":\\{\"perSecond\":\\d+\\.\\d{3},\"p99Ms\":\\d+\\.\\d{3},");
    }

    @Test
    void aClusterNodeListsPeersHintsAndRepair() throws Exception {
        ClusterSource cluster = new ClusterSource() {
            @Override
            public int replicationFactor() {
                return 2;
            }

            @Override
            public List<Peer> peers() {
                return List.of(
                        new Peer("http://b:8080", true, 0, true, new PeerCallStats.Snapshot(10, 7, 1, 1, 1, 1234)),
                        new Peer("http://c:8080", false, 99, false, new PeerCallStats.Snapshot(0, 0, 0, 0, 0, 0)));
            }

            @Override
            public HintStats hints() {
                return new HintStats(2, 20, 1, 3, 4, 5, 1, 1, 1, 1, 1);
            }

            @Override
            public long readRepairs() {
                return 11;
            }

            @Override
            public long speculativeReads() {
                return 12;
            }

            @Override
            public RepairStatus repair() {
                return new RepairStatus(
                        RepairStatus.State.IDLE,
                        RepairStatus.Run.NONE,
                        new RepairStatus.Run(1, 2, 3, 0, 3, 4, 5, RepairStatus.Outcome.OK, "peer said \"no\""));
            }

            @Override
            public NodeIdentity identity() {
                return new NodeIdentity("c1", 2, 0xabcL, NodeState.REPLACING, 0);
            }

            @Override
            public Membership membership() {
                return new Membership("c1", List.of("http://a:8080", "http://b:8080", "http://c:8080"), 3);
            }
        };
        JsonNode s = JSON.readTree(new NodeStatus(
                        () -> "http://a:8080",
                        "1.2.3",
                        "/d",
                        () -> ENGINE,
                        null,
                        Optional.of(cluster),
                        TimeSource.SYSTEM)
                .json());
        assertThat(s.path("peers")).hasSize(2);
        assertThat(s.path("replicationFactor").intValue()).isEqualTo(2);
        JsonNode b = s.path("peers").get(0);
        assertThat(fields(b))
                .containsExactly(
                        "url",
                        "state",
                        "downSinceMs",
                        "slow",
                        "lastContactMs",
                        "calls",
                        "timeouts",
                        "unreachable",
                        "failed");
        assertThat(b.path("state").textValue()).isEqualTo("up");
        assertThat(b.path("lastContactMs").longValue()).isEqualTo(1234);
        assertThat(b.path("slow").booleanValue()).isTrue();
        assertThat(s.path("peers").get(1).path("slow").booleanValue()).isFalse();
        assertThat(s.path("peers").get(1).path("state").textValue()).isEqualTo("down");
        assertThat(s.path("peers").get(1).path("downSinceMs").longValue()).isEqualTo(99);
        assertThat(fields(s.path("hints")))
                .containsExactly("pending", "pendingBytes", "queued", "delivered", "dropped");
        assertThat(s.path("hints").path("dropped").longValue()).isEqualTo(5);
        assertThat(s.path("readRepairs").longValue()).isEqualTo(11);
        assertThat(s.path("speculativeReads").longValue()).isEqualTo(12);
        JsonNode repair = s.path("repair");
        assertThat(fields(repair))
                .containsExactly(
                        "state",
                        "rangesDone",
                        "rangesFailed",
                        "rangesTotal",
                        "keysReceived",
                        "keysSent",
                        "startedAtMs",
                        "lastRun");
        assertThat(repair.path("state").textValue()).isEqualTo("idle");
        assertThat(repair.path("lastRun").path("outcome").textValue()).isEqualTo("ok");
        assertThat(repair.path("lastRun").path("lastError").textValue()).isEqualTo("peer said \"no\"");
        JsonNode member = s.path("membership");
        assertThat(fields(member))
                .containsExactly("cluster", "nodeId", "incarnation", "state", "replicationFactor", "epoch", "digest");
        assertThat(member.path("state").textValue()).isEqualTo("REPLACING");
        assertThat(member.path("nodeId").intValue()).isEqualTo(2);
        assertThat(member.path("incarnation").textValue()).isEqualTo("0000000000000abc");
    }
}
