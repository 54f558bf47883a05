package io.ringbase.faults;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.faults.client.NodeApi;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The operator requests of a run's final checks, through the nodes' admin and internal APIs: anti-entropy
 * repair on every node ({@code POST /v0/admin/repair}), flush and major compaction, and a look at one
 * replica's raw entry for a key ({@code GET /internal/v0/entry}). Whatever does not work as a healthy
 * cluster's would is a {@link Note.Severity#FAILURE} note.
 */
final class ClusterAdmin {

    /** How long one node's repair may run (ms). */
    static final long REPAIR_TIMEOUT_MS = 120_000;

    private final List<NodeApi> apis;
    private final List<Note> notes;
    private final Consumer<String> events;
    private final java.util.Map<Integer, String> digests = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Admin calls through {@code apis}.
     *
     * @param apis   one API per node, by index
     * @param notes  where failures are noted
     * @param events the run's event log
     */
    ClusterAdmin(List<NodeApi> apis, List<Note> notes, Consumer<String> events) {
        this.apis = apis;
        this.notes = notes;
        this.events = events;
    }

    /**
     * Waits until every node answers a read with {@code ack} = every node (all nodes up and reachable from
     * each other).
     *
     * @return false if some node did not within {@code timeoutMs} (ms) of the call
     */
    boolean awaitHealthy(int nodes, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        for (NodeApi api : apis) {
            Duration left = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 200_000_000L));
            try {
                await().atMost(left).pollInterval(Duration.ofMillis(100)).until(() -> {
                    HttpResponse<String> r = api.raw("GET", "/v0/entity?id=health&ack=" + nodes);
                    return r != null && (r.statusCode() == 404 || r.statusCode() == 200);
                });
            } catch (ConditionTimeoutException e) {
                return false;
            }
        }
        return true;
    }

    /** What one round of repair on every node moved. */
    record RepairTotals(long keysReceived, long keysSent, int nodesOk) {}

    /**
     * {@code POST /v0/admin/repair} on each node in turn, waiting for each run to end; a run not started,
     * not finished in {@link #REPAIR_TIMEOUT_MS} or not {@code ok} (some ranges failed) is a failure: the
     * cluster is healed by then, so every range must repair.
     *
     * @param round the round's name in notes and events ({@code "repair"}, {@code "repair after purge"})
     */
    RepairTotals repairEveryNode(String round) {
        long received = 0;
        long sent = 0;
        int ok = 0;
        for (int i = 0; i < apis.size(); i++) {
            NodeApi api = apis.get(i);
            long before = lastRunStart(status(api));
            HttpResponse<String> started = api.raw("POST", "/v0/admin/repair");
            if (started == null || started.statusCode() != 202) {
                notes.add(Note.failure(round + " on n" + i + " not started: "
                        + (started == null ? "no answer" : started.statusCode() + " " + started.body())));
                continue;
            }
            JsonNode[] last = {null};
            try {
                await().atMost(Duration.ofMillis(REPAIR_TIMEOUT_MS))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            last[0] = status(api);
                            return last[0] != null
                                    && last[0].path("state").asText().equals("idle")
                                    && lastRunStart(last[0]) != before;
                        });
            } catch (ConditionTimeoutException e) {
                notes.add(Note.failure(
                        round + " on n" + i + " did not finish in " + REPAIR_TIMEOUT_MS / 1000 + " s: " + last[0]));
                continue;
            }
            JsonNode run = last[0].path("lastRun");
            events.accept(round + " n" + i + ": " + run);
            received += run.path("keysReceived").asLong();
            sent += run.path("keysSent").asLong();
            if (run.path("outcome").asText().equals("ok")) {
                ok++;
            } else {
                notes.add(Note.failure(round + " on n" + i + " "
                        + run.path("outcome").asText() + ", "
                        + run.path("rangesFailed").asLong() + "/"
                        + run.path("rangesTotal").asLong()
                        + " ranges failed, last error " + run.path("lastError").asText()));
            }
        }
        return new RepairTotals(received, sent, ok);
    }

    /** The node's repair status, or {@code null} if it did not answer with one. */
    private static JsonNode status(NodeApi api) {
        return api.getJson("/v0/admin/repair");
    }

    /** When the status' last finished run started (Unix ms), or -1 if there is none. */
    private static long lastRunStart(JsonNode status) {
        return status == null ? -1 : status.path("lastRun").path("startedAtMs").asLong(-1);
    }

    /**
     * {@code POST /v0/admin/flush}, then {@code POST /v0/admin/compact}, on node {@code i}: every entry it
     * holds goes through one merge, which drops the tombstones older than the grace.
     *
     * @return whether both answered 200 (a failure is noted)
     */
    boolean flushAndCompact(int i) {
        for (String op : List.of("flush", "compact")) {
            HttpResponse<String> r = apis.get(i).raw("POST", "/v0/admin/" + op);
            if (r == null || r.statusCode() != 200) {
                notes.add(Note.failure(op + " on n" + i + " failed: "
                        + (r == null
                                ? "no answer"
                                : r.statusCode() + " " + r.body().strip())));
                return false;
            }
            events.accept(op + " n" + i + ": " + r.body().strip());
        }
        return true;
    }

    /** What one replica holds for a key. */
    enum Held {
        NOTHING,
        TOMBSTONE,
        VALUE,
        /** The replica did not answer 200 or 404. */
        UNKNOWN
    }

    /**
     * The membership digest of node {@code i} ({@code /v0/status}), asked once per node: a restart with
     * other flags keeps it. {@code null} while the node does not answer with one.
     */
    private String membershipDigest(int i) {
        String known = digests.get(i);
        if (known != null) {
            return known;
        }
        JsonNode status = apis.get(i).getJson("/v0/status");
        String digest =
                status == null ? "" : status.path("membership").path("digest").asText("");
        if (digest.isEmpty()) {
            return null;
        }
        digests.put(i, digest);
        return digest;
    }

    /** What node {@code i} itself holds for {@code key}: its raw entry, tombstones included. */
    Held held(int i, String key) {
        String hex = HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8));
        String digest = membershipDigest(i);
        if (digest == null) {
            return Held.UNKNOWN;
        }
        // an internal request must carry the cluster's membership digest, as a peer's does
        HttpResponse<String> r = apis.get(i)
                .raw("GET", "/internal/v0/entry?id=" + hex, java.util.Map.of(InternalProtocol.MEMBERSHIP, digest));
        if (r == null) {
            return Held.UNKNOWN;
        }
        if (r.statusCode() == 404) {
            return Held.NOTHING;
        }
        if (r.statusCode() != 200 || r.body().isEmpty()) {
            return Held.UNKNOWN;
        }
        // the entry encoding's first byte is its flags, bit 0 the tombstone (docs/http-api.md)
        return (r.body().charAt(0) & 0x01) != 0 ? Held.TOMBSTONE : Held.VALUE;
    }
}
