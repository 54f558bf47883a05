package io.ringbase.faults.nemesis;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.ringbase.faults.client.NodeApi;
import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.cluster.NsNode;
import io.ringbase.faults.net.NetworkLab;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Membership changes under load, on a cluster whose membership comes from the metadata log
 * ({@link NsCluster.Membership#ELASTIC}); the clients keep talking to the founding nodes only.
 *
 * <ul>
 *   <li>{@link Kind#GROW_SHRINK}: the cluster grows from 3 to 5 nodes and back: two nodes join one after the
 *       other ({@code serve --join}, each awaited until NORMAL), then both are decommissioned ({@code POST
 *       /v0/admin/decommission}, each awaited until LEFT) and stopped. No other fault: a client request that
 *       fails meanwhile is a finding of the membership change itself (the run's notes count them).</li>
 *   <li>{@link Kind#JOIN_DURING_KILL}: a node joins while a random founding node is SIGKILLed (right after
 *       the joining node committed its StartJoin) and restarted {@link #KILL_MS} later; the join must still
 *       finish; then the node is decommissioned and stopped, back to 3.</li>
 *   <li>{@link Kind#WIPE_REPLACE}: a node joins; once NORMAL it is SIGKILLed and its data directory deleted, as
 *       a lost disk; started again as it was, it must refuse to start (its metadata says it holds data, its
 *       directory is empty) and name {@code --replace ID}; started with {@code --replace ID} at the same URL, it
 *       streams the lost node's keys and must reach NORMAL; then it is decommissioned, back to 3. The history's
 *       checkers show whether it answered a read before its streaming was done (a stale read).</li>
 * </ul>
 *
 * Each injection is one whole cycle (the run's fault window holds it). Each change is awaited through the
 * node's {@code GET /v0/admin/decommission} ({@code state}, {@code phase}, {@code epoch}), then until every
 * founding node has its epoch, then (a join) until every running founding node holds the new node up
 * ({@link #PEER_UP_TIMEOUT_MS}). A change that does not finish within its bound ({@link #JOIN_TIMEOUT_MS},
 * {@link #DECOMMISSION_TIMEOUT_MS}), a refused decommission, a node that exits, a joined node held down, and a
 * failed attempt with no other fault injected, are failure {@link Finding}s; after a change that did not
 * finish, later injections change nothing (the nodes left over stay up until the run ends, so the checks see
 * the cluster as the failure left it).
 */
public final class MembershipNemesis implements Nemesis {

    /** The fault. */
    public enum Kind {
        GROW_SHRINK,
        JOIN_DURING_KILL,
        WIPE_REPLACE
    }

    /** How long one join may take, from the joining node's start to its NORMAL state, ms. */
    static final long JOIN_TIMEOUT_MS = 120_000;
    /** How long one decommission may take, from its request to the node's LEFT state, ms. */
    static final long DECOMMISSION_TIMEOUT_MS = 120_000;
    /** How long the founding nodes may take to reach a finished change's epoch, ms. */
    static final long EPOCH_TIMEOUT_MS = 30_000;
    /**
     * How long the running founding nodes may hold a joined node down ({@code GET /v0/status}: its peer
     * {@code state}) once it is NORMAL and they have its epoch, ms. A node held down gets only hints and no
     * reads from that coordinator, and counts against the quorum.
     */
    static final long PEER_UP_TIMEOUT_MS = 5_000;
    /** How long {@link Kind#JOIN_DURING_KILL} keeps the founding node down, ms. */
    static final long KILL_MS = 5_000;
    /** Nodes {@link Kind#GROW_SHRINK} adds, then removes. */
    static final int GROW_BY = 2;

    private static final Duration POLL = Duration.ofMillis(200);

    private final Kind kind;
    private final List<Finding> findings = new ArrayList<>();
    private final List<ChangeWindow> windows = new ArrayList<>();
    private final Map<String, NodeApi> apis = new HashMap<>();
    /** A founding node this nemesis SIGKILLed and has not restarted yet. */
    private NsNode killed;
    /** Set by a change that did not finish: later injections change nothing. */
    private boolean broken;

    public MembershipNemesis(Kind kind) {
        this.kind = kind;
    }

    @Override
    public String name() {
        return switch (kind) {
            case GROW_SHRINK -> "membership grow and shrink (join 2, decommission 2)";
            case JOIN_DURING_KILL -> "membership join during a founder's kill (SIGKILL, restart)";
            case WIPE_REPLACE -> "membership wiped disk, then replace (SIGKILL, rm -rf, --replace)";
        };
    }

    @Override
    public NsCluster.Membership membership() {
        return NsCluster.Membership.ELASTIC;
    }

    @Override
    public List<Finding> findings() {
        return List.copyOf(findings);
    }

    @Override
    public List<ChangeWindow> changeWindows() {
        return List.copyOf(windows);
    }

    @Override
    public void prepare(NsCluster cluster, NetworkLab lab) {
        findings.clear();
        windows.clear();
        apis.clear();
        killed = null;
        broken = false;
    }

    @Override
    public String inject(NsCluster cluster, NetworkLab lab, Random random) throws Exception {
        if (broken) {
            return "nothing: an earlier membership change did not finish";
        }
        List<String> did = new ArrayList<>();
        List<NsNode> added = new ArrayList<>();
        if (kind == Kind.GROW_SHRINK) {
            for (int j = 0; j < GROW_BY && !broken; j++) {
                NsNode n = join(cluster, lab, null, did);
                if (n != null) {
                    added.add(n);
                }
            }
        } else {
            NsNode n = join(cluster, lab, kind == Kind.JOIN_DURING_KILL ? random : null, did);
            if (n != null && kind == Kind.WIPE_REPLACE) {
                n = wipeAndReplace(cluster, n, did) ? n : null;
            }
            if (n != null) {
                added.add(n);
            }
        }
        for (NsNode n : added.reversed()) {
            if (!broken) {
                decommission(cluster, n, did);
            }
        }
        return String.join("; ", did);
    }

    @Override
    public String heal(NsCluster cluster, NetworkLab lab) throws Exception {
        if (killed == null) {
            return null;
        }
        NsNode n = killed;
        killed = null;
        n.start(0).join();
        return "restart n" + n.index();
    }

    /**
     * Starts a node that joins and waits until it is NORMAL, every founding node has its epoch and holds it up; with a
     * {@code random}, SIGKILLs a random founding node once the joining node has started and restarts it after
     * {@link #KILL_MS}.
     *
     * @return the node, or {@code null} if it did not become NORMAL (a failure finding says why)
     */
    private NsNode join(NsCluster cluster, NetworkLab lab, Random random, List<String> did) throws Exception {
        long start = System.nanoTime();
        NsNode n;
        try {
            n = cluster.join(lab);
        } catch (CompletionException | IllegalStateException e) {
            broken = true;
            findings.add(Finding.failure("a joining node did not start: " + e.getMessage()));
            windows.add(new ChangeWindow("join (not started)", start, System.nanoTime(), random != null));
            return null;
        }
        String what = "join n" + n.index();
        if (random != null) {
            NsNode victim = cluster.node(random.nextInt(cluster.size()));
            victim.kill();
            killed = victim;
            did.add("n" + n.index() + " JOINING, SIGKILL n" + victim.index());
            Thread.sleep(KILL_MS); // the founding node stays down this long, as a kill nemesis' fault lasts
            victim.start(0).join();
            killed = null;
            did.add("restart n" + victim.index());
            what += " (n" + victim.index() + " SIGKILLed and restarted)";
        }
        Set<String> attemptsFailed = new LinkedHashSet<>();
        JsonNode last = awaitState(n, "NORMAL", start + JOIN_TIMEOUT_MS * 1_000_000, attemptsFailed);
        long end = System.nanoTime();
        windows.add(new ChangeWindow(what, start, end, random != null));
        noteFailedAttempts(n, "join", attemptsFailed, random != null);
        if (last == null || !last.path("state").asText().equals("NORMAL")) {
            broken = true;
            findings.add(Finding.failure("n" + n.index() + " did not join within " + JOIN_TIMEOUT_MS / 1000 + " s ("
                    + exitOr(n, last) + "); its log: " + n.dataDir() + ".log"));
            did.add(what + ": not NORMAL within " + JOIN_TIMEOUT_MS / 1000 + " s");
            return null;
        }
        long epoch = last.path("epoch").asLong();
        did.add(String.format(
                "n%d NORMAL at epoch %d in %.1f s (%d entries streamed)",
                n.index(), epoch, (end - start) / 1e9, last.path("entries").asLong()));
        awaitFoundersAt(cluster, epoch, "n" + n.index() + "'s join");
        awaitFoundersHoldUp(cluster, n);
        return n;
    }

    /**
     * SIGKILLs joined node {@code n}, deletes its data directory, checks that it refuses to start as it was, then
     * starts it with {@code --replace ID} and waits until it is NORMAL, every founding node has its epoch and
     * holds it up.
     *
     * @return whether it became NORMAL (a failure finding says why not)
     */
    private boolean wipeAndReplace(NsCluster cluster, NsNode n, List<String> did) throws Exception {
        JsonNode before = status(n);
        int id = before == null ? 0 : before.path("nodeId").asInt();
        if (id <= 0) {
            broken = true;
            findings.add(Finding.failure("n" + n.index() + " reported no node id before its wipe: " + before));
            return false;
        }
        long start = System.nanoTime();
        String what = "wipe n" + n.index() + " (node id " + id + ") and replace it";
        n.kill();
        n.wipe();
        did.add("SIGKILL n" + n.index() + ", delete its data directory");
        String refusal;
        try {
            int code = n.startExpectingRefusal();
            String log = n.logText();
            refusal = log.contains("--replace " + id)
                    ? null
                    : "it exited with code " + code + " without naming --replace " + id;
        } catch (IllegalStateException e) {
            refusal = e.getMessage() + ": a wiped node was let back in as a full replica";
        }
        if (refusal != null) {
            broken = true;
            windows.add(new ChangeWindow(what, start, System.nanoTime(), false));
            findings.add(Finding.failure("n" + n.index() + ", wiped and started as it was: " + refusal + "; its log: "
                    + n.dataDir() + ".log"));
            did.add(what + ": not refused as it should be");
            return false;
        }
        did.add("n" + n.index() + " refused to start without --replace " + id);
        List<String> flags = new ArrayList<>(n.extraFlags());
        flags.addAll(List.of("--replace", Integer.toString(id)));
        n.setExtraFlags(flags);
        try {
            n.start(0).join();
        } catch (CompletionException e) {
            broken = true;
            windows.add(new ChangeWindow(what, start, System.nanoTime(), false));
            findings.add(Finding.failure("n" + n.index() + " did not start with --replace " + id + ": " + e.getMessage()
                    + "; its log: " + n.dataDir() + ".log"));
            return false;
        }
        Set<String> attemptsFailed = new LinkedHashSet<>();
        JsonNode last = awaitState(n, "NORMAL", start + JOIN_TIMEOUT_MS * 1_000_000, attemptsFailed);
        long end = System.nanoTime();
        // no client talks to the lost node and every key keeps two of its three replicas: no request may fail
        windows.add(new ChangeWindow(what, start, end, false));
        noteFailedAttempts(n, "replacement", attemptsFailed, true);
        if (last == null || !last.path("state").asText().equals("NORMAL")) {
            broken = true;
            findings.add(Finding.failure("n" + n.index() + " did not replace node id " + id + " within "
                    + JOIN_TIMEOUT_MS / 1000 + " s (" + exitOr(n, last) + "); its log: " + n.dataDir() + ".log"));
            did.add(what + ": not NORMAL within " + JOIN_TIMEOUT_MS / 1000 + " s");
            return false;
        }
        long epoch = last.path("epoch").asLong();
        did.add(String.format(
                "n%d NORMAL as node id %d at epoch %d in %.1f s (%d entries streamed)",
                n.index(),
                last.path("nodeId").asInt(),
                epoch,
                (end - start) / 1e9,
                last.path("entries").asLong()));
        awaitFoundersAt(cluster, epoch, "n" + n.index() + "'s replacement");
        awaitFoundersHoldUp(cluster, n);
        return true;
    }

    /** Decommissions {@code n}, waits until it is LEFT and every founding node has its epoch, then stops it. */
    private void decommission(NsCluster cluster, NsNode n, List<String> did) throws Exception {
        long start = System.nanoTime();
        String what = "decommission n" + n.index();
        HttpResponse<String> r = api(n).raw("POST", "/v0/admin/decommission");
        if (r == null || r.statusCode() != 200) {
            broken = true;
            windows.add(new ChangeWindow(what, start, System.nanoTime(), false));
            findings.add(Finding.failure(what + " refused: "
                    + (r == null ? "no answer" : r.statusCode() + " " + r.body().strip())));
            did.add(what + ": refused");
            return;
        }
        Set<String> attemptsFailed = new LinkedHashSet<>();
        JsonNode last = awaitState(n, "LEFT", start + DECOMMISSION_TIMEOUT_MS * 1_000_000, attemptsFailed);
        long end = System.nanoTime();
        windows.add(new ChangeWindow(what, start, end, false));
        noteFailedAttempts(n, "decommission", attemptsFailed, false);
        if (last == null || !last.path("state").asText().equals("LEFT")) {
            broken = true;
            findings.add(Finding.failure("n" + n.index() + " was not LEFT within " + DECOMMISSION_TIMEOUT_MS / 1000
                    + " s of its decommission (" + exitOr(n, last) + "); its log: " + n.dataDir() + ".log"));
            did.add(what + ": not LEFT within " + DECOMMISSION_TIMEOUT_MS / 1000 + " s");
            return;
        }
        long epoch = last.path("epoch").asLong();
        did.add(String.format(
                "n%d LEFT at epoch %d in %.1f s (%d entries streamed)",
                n.index(), epoch, (end - start) / 1e9, last.path("entries").asLong()));
        awaitFoundersAt(cluster, epoch, "n" + n.index() + "'s decommission");
        cluster.remove(n);
        did.add("stop n" + n.index());
    }

    /**
     * Polls node {@code n}'s change status until its state is {@code state}, its process is gone, or
     * {@code deadlineNanos}. A failed attempt of the change ({@code phase} failed) is recorded in
     * {@code attemptsFailed}; a failed decommission is requested again, as an operator would (its driver does
     * not retry by itself; a join's does).
     *
     * @return the last status seen, or {@code null} if none was
     */
    private JsonNode awaitState(NsNode n, String state, long deadlineNanos, Set<String> attemptsFailed) {
        JsonNode[] last = {null};
        Duration left = Duration.ofNanos(Math.max(deadlineNanos - System.nanoTime(), POLL.toNanos()));
        try {
            await().atMost(left).pollInterval(POLL).pollInSameThread().until(() -> {
                if (!n.isAlive()) {
                    return true;
                }
                JsonNode s = status(n);
                if (s == null) {
                    return false;
                }
                last[0] = s;
                if (s.path("phase").asText().equals("failed")) {
                    String error =
                            s.path("kind").asText() + ": " + s.path("error").asText();
                    if (attemptsFailed.add(error) && s.path("state").asText().equals("LEAVING")) {
                        HttpResponse<String> again = api(n).raw("POST", "/v0/admin/decommission");
                        attemptsFailed.add("decommission requested again: "
                                + (again == null ? "no answer" : again.statusCode() + " " + again.body()));
                    }
                }
                return s.path("state").asText().equals(state);
            });
        } catch (ConditionTimeoutException e) {
            // the caller notes it
        }
        return last[0];
    }

    /** Waits until every running founding node's epoch is at least {@code epoch}; a failure finding if not. */
    private void awaitFoundersAt(NsCluster cluster, long epoch, String change) {
        Map<Integer, Long> seen = new HashMap<>();
        try {
            await().atMost(Duration.ofMillis(EPOCH_TIMEOUT_MS))
                    .pollInterval(POLL)
                    .pollInSameThread()
                    .until(() -> {
                        boolean all = true;
                        for (NsNode f : cluster.nodes()) {
                            JsonNode s = status(f);
                            long e = s == null ? -1 : s.path("epoch").asLong(-1);
                            seen.put(f.index(), e);
                            all &= e >= epoch;
                        }
                        return all;
                    });
        } catch (ConditionTimeoutException e) {
            findings.add(Finding.failure("the founding nodes did not reach epoch " + epoch + " of " + change
                    + " within " + EPOCH_TIMEOUT_MS / 1000 + " s: epochs by node " + seen));
        }
    }

    /** Waits until every running founding node holds {@code n} up; a failure finding if not. */
    private void awaitFoundersHoldUp(NsCluster cluster, NsNode n) {
        Map<Integer, String> seen = new HashMap<>();
        try {
            await().atMost(Duration.ofMillis(PEER_UP_TIMEOUT_MS))
                    .pollInterval(POLL)
                    .pollInSameThread()
                    .until(() -> {
                        boolean all = true;
                        for (NsNode f : cluster.nodes()) {
                            if (f.isAlive()) {
                                String state = peerState(f, n.url());
                                seen.put(f.index(), state);
                                all &= state.startsWith("up");
                            }
                        }
                        return all;
                    });
        } catch (ConditionTimeoutException e) {
            findings.add(
                    Finding.failure("founding nodes still held n" + n.index() + " down " + PEER_UP_TIMEOUT_MS / 1000
                            + " s after it was NORMAL and they had its epoch (peer state in GET /v0/status by founding "
                            + "node: " + seen + "): they hint its writes, leave it out of reads and count it against "
                            + "the quorum"));
        }
    }

    /**
     * What founding node {@code f} holds of the node at {@code url}: its peer {@code state} and, when down,
     * since when ({@code "down since 1795836930677"}), or {@code "not a peer"}, or {@code "no status"}.
     */
    private String peerState(NsNode f, String url) {
        JsonNode status = api(f).getJson("/v0/status");
        if (status == null) {
            return "no status";
        }
        for (JsonNode p : status.path("peers")) {
            if (p.path("url").asText().equals(url)) {
                String state = p.path("state").asText();
                return state.equals("up")
                        ? state
                        : state + " since " + p.path("downSinceMs").asLong();
            }
        }
        return "not a peer";
    }

    private void noteFailedAttempts(NsNode n, String change, Set<String> attemptsFailed, boolean faultInjected) {
        if (attemptsFailed.isEmpty()) {
            return;
        }
        String text = "n" + n.index() + "'s " + change + " had failed attempts"
                + (faultInjected ? " (a founding " + "node was killed)" : " with no other fault injected") + ": "
                + String.join(" | ", attemptsFailed);
        findings.add(faultInjected ? Finding.info(text) : Finding.failure(text));
    }

    private static String exitOr(NsNode n, JsonNode last) {
        if (!n.isAlive()) {
            return "its process exited: " + n.unexpectedExits();
        }
        return "last status " + last;
    }

    /** The node's membership status ({@code GET /v0/admin/decommission}), or {@code null} without one. */
    private JsonNode status(NsNode n) {
        return api(n).getJson("/v0/admin/decommission");
    }

    private NodeApi api(NsNode n) {
        return apis.computeIfAbsent(n.url(), NodeApi::new);
    }
}
