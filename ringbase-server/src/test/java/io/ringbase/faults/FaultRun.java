package io.ringbase.faults;

import static org.awaitility.Awaitility.await;

import io.ringbase.faults.checker.FinalRead;
import io.ringbase.faults.checker.Linearizability;
import io.ringbase.faults.checker.SetCheckers;
import io.ringbase.faults.checker.Verdict;
import io.ringbase.faults.client.NodeApi;
import io.ringbase.faults.client.Workload;
import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.cluster.NsNode;
import io.ringbase.faults.history.History;
import io.ringbase.faults.history.Op;
import io.ringbase.faults.nemesis.Nemesis;
import io.ringbase.faults.net.NetworkLab;
import io.ringbase.faults.net.Shell;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One fault's run: a fresh cluster, the workload, the nemesis alternating injections and heals for
 * {@link SuiteSettings#faultSeconds()}, a final heal, then the final reads, repair and scans, and the
 * checkers. Failing checkers' histories are written under {@code outputDir/<fault>/}.
 */
final class FaultRun {

    /** Checker names: the report's columns, in order. */
    static final String LINEARIZABLE = "linearizable registers";

    static final String NO_LOST_WRITES = "no lost acked writes";
    static final String NO_RESURRECTION = "no resurrection after repair";
    static final String SCANS_COMPLETE = "scans complete";

    /** The serve flags of every node: small memtables, so the runs flush and compact. */
    static final List<String> NODE_FLAGS = List.of("--memtable-size", "4m");

    private final SuiteSettings settings;
    private final NetworkLab lab;
    private final Nemesis nemesis;
    private final Path dir;
    private final Path pidFile;
    private final Random random;
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    /** {inject, heal} nanoTime of each fault window. */
    private final List<long[]> faultWindows = new ArrayList<>();

    private final List<String> notes = new ArrayList<>();
    private long origin;

    FaultRun(SuiteSettings settings, NetworkLab lab, Nemesis nemesis, Path dir, Path pidFile, long seed) {
        this.settings = settings;
        this.lab = lab;
        this.nemesis = nemesis;
        this.dir = dir;
        this.pidFile = pidFile;
        this.random = new Random(seed);
    }

    FaultResult run() throws Exception {
        deleteTree(dir);
        Files.createDirectories(dir);
        resetNetwork();
        NsCluster cluster = new NsCluster(SuiteSettings.NODES, dir, pidFile, NODE_FLAGS);
        origin = System.nanoTime();
        History history = new History(origin);
        List<NodeApi> apis = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            apis.add(new NodeApi(cluster.url(i)));
        }
        Workload workload =
                new Workload(apis, history, settings.clients(), random.nextLong(), settings.opsPerRegisterKey());
        try {
            nemesis.prepare(cluster, lab);
            cluster.start();
            awaitHealthy(cluster, apis, 60_000);
            event("cluster up");
            workload.start();
            Thread.sleep(1_000);
            long end = System.nanoTime() + settings.faultSeconds() * 1_000_000_000L;
            while (System.nanoTime() < end) {
                event("inject: " + nemesis.inject(cluster, lab, random));
                long injected = System.nanoTime();
                Thread.sleep(settings.activeMs());
                long healing = System.nanoTime();
                event("heal: " + nemesis.heal(cluster, lab));
                faultWindows.add(new long[] {injected, healing});
                Thread.sleep(settings.quietMs());
            }
            String last = nemesis.heal(cluster, lab);
            if (last != null) {
                event("heal: " + last);
            }
            Thread.sleep(2_000); // clients run on a healed cluster for a moment
            workload.stop();
            event("clients stopped");
            restartDead(cluster);
            if (!awaitHealthy(cluster, apis, 60_000)) {
                notes.add("the cluster did not answer ack=3 reads on every node within 60 s of healing");
            }
            return check(cluster, apis, history);
        } finally {
            workload.stop();
            try {
                nemesis.heal(cluster, lab);
            } catch (Exception e) {
                notes.add("final heal failed: " + e);
            }
            cluster.close();
            nemesis.cleanup(cluster, lab);
            Files.write(dir.resolve("events.log"), events, StandardCharsets.UTF_8);
        }
    }

    private FaultResult check(NsCluster cluster, List<NodeApi> apis, History history) throws Exception {
        // final register reads through every node, appended to the history (sequential, after every client)
        List<String> registerKeys = new ArrayList<>();
        for (String key : history.byKey().keySet()) {
            if (Workload.isRegisterKey(key)) {
                registerKeys.add(key);
            }
        }
        for (String key : registerKeys) {
            for (int i = 0; i < apis.size(); i++) {
                long invoke = System.nanoTime();
                NodeApi.Answer a = apis.get(i).get(key);
                history.add(new Op(
                        "final@n" + i, Op.Fn.READ, key, a.value(), invoke, System.nanoTime(), a.outcome(), a.note()));
                if (a.outcome() != Op.Outcome.OK) {
                    notes.add("final read of " + key + " through n" + i + " failed: " + a.note());
                }
            }
        }
        event("final register reads done");
        List<Op> all = history.ops();
        List<Op> setOps =
                all.stream().filter(op -> !Workload.isRegisterKey(op.key())).toList();
        Map<String, FinalRead> afterHeal = readSetKeys(apis, setOps, false);
        event("final set reads done");
        repairEveryNode(apis);
        Map<String, FinalRead> afterRepair = readSetKeys(apis, setOps, true);
        Map<String, Map<String, String>> scans = new LinkedHashMap<>();
        for (int i = 0; i < apis.size(); i++) {
            try {
                scans.put("n" + i, apis.get(i).scan(Workload.SET_START, Workload.SET_END));
            } catch (IOException e) {
                scans.put("n" + i, null);
                notes.add("scan through n" + i + ": " + e.getMessage());
            }
        }
        event("scans done");

        Map<String, List<Op>> registers = new LinkedHashMap<>();
        history.byKey().forEach((k, ops) -> {
            if (Workload.isRegisterKey(k)) {
                registers.put(k, ops);
            }
        });
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        verdicts.put(LINEARIZABLE, Linearizability.check(registers, Linearizability.DEFAULT_MAX_STEPS));
        verdicts.put(NO_LOST_WRITES, SetCheckers.noLostWrites(setOps, afterHeal));
        verdicts.put(NO_RESURRECTION, SetCheckers.noResurrection(setOps, afterRepair));
        verdicts.put(SCANS_COMPLETE, SetCheckers.scansComplete(setOps, scans));

        int ok = 0;
        int failed = 0;
        int unknown = 0;
        for (Op op : all) {
            if (op.process().startsWith("final")) {
                continue;
            }
            switch (op.outcome()) {
                case OK -> ok++;
                case FAIL -> failed++;
                case UNKNOWN -> unknown++;
            }
        }
        saveFailures(history, verdicts, registers, setOps, cluster);
        return new FaultResult(nemesis.name(), verdicts, ok, failed, unknown, notes, faultLatency(all));
    }

    /** One quorum read per set key (or per deleted key), through the nodes in turn. */
    private Map<String, FinalRead> readSetKeys(List<NodeApi> apis, List<Op> setOps, boolean deletedOnly) {
        Map<String, FinalRead> out = new LinkedHashMap<>();
        int i = 0;
        for (Op op : setOps) {
            if (out.containsKey(op.key()) || (deletedOnly && op.f() != Op.Fn.DELETE)) {
                continue;
            }
            NodeApi.Answer a = apis.get(i++ % apis.size()).get(op.key());
            out.put(op.key(), new FinalRead(op.key(), a.outcome() == Op.Outcome.OK, a.value(), a.note()));
        }
        return out;
    }

    /** POST /v0/admin/repair on each node in turn, waiting for each run to end. */
    private void repairEveryNode(List<NodeApi> apis) throws InterruptedException {
        for (int i = 0; i < apis.size(); i++) {
            HttpResponse<String> started = apis.get(i).raw("POST", "/v0/admin/repair");
            if (started == null || started.statusCode() != 202) {
                notes.add(
                        "repair on n" + i + " not started: " + (started == null ? "no answer" : started.statusCode()));
                continue;
            }
            NodeApi api = apis.get(i);
            String[] last = {""};
            try {
                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            HttpResponse<String> r = api.raw("GET", "/v0/admin/repair");
                            last[0] = r == null ? "no answer" : r.body();
                            return last[0].contains("\"state\":\"idle\"");
                        });
            } catch (ConditionTimeoutException e) {
                // noted below
            }
            String status = last[0];
            event("repair n" + i + ": " + status.strip());
            if (!status.contains("\"state\":\"idle\"")) {
                notes.add("repair on n" + i + " did not finish in 120 s");
            } else if (!status.contains("\"outcome\":\"ok\"")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                                "\"rangesFailed\":(\\d+),\"rangesTotal\":(\\d+)[^{]*\"outcome\":\"(\\w+)\",\"lastError\":(.*)\\}\\}")
                        .matcher(status);
                notes.add("repair on n" + i + " "
                        + (m.find()
                                ? m.group(3) + ", " + m.group(1) + "/" + m.group(2) + " ranges failed, last error "
                                        + m.group(4)
                                : status.strip()));
            }
        }
    }

    /**
     * The latency of the clients' operations invoked inside a fault window (whatever their outcome: what a
     * client waited), by the node they went through (a client's process is {@code c<k>@n<i>}): p50 and p99
     * in ms and the count. Under a majority/minority partition, the majority side's figures are those to
     * hold against the replica timeout; nothing here is asserted.
     */
    private String faultLatency(List<Op> all) {
        java.util.TreeMap<String, List<Long>> byNode = new java.util.TreeMap<>();
        for (Op op : all) {
            int at = op.process().indexOf('@');
            if (op.process().startsWith("final") || at < 0) {
                continue;
            }
            for (long[] w : faultWindows) {
                if (op.invokeNanos() >= w[0] && op.invokeNanos() < w[1]) {
                    byNode.computeIfAbsent(op.process().substring(at + 1), n -> new ArrayList<>())
                            .add(op.completeNanos() - op.invokeNanos());
                    break;
                }
            }
        }
        List<String> parts = new ArrayList<>();
        byNode.forEach((node, nanos) -> {
            java.util.Collections.sort(nanos);
            parts.add(String.format(
                    java.util.Locale.ROOT,
                    "%s p50 %.1f / p99 %.1f ms (%d)",
                    node,
                    percentile(nanos, 50) / 1e6,
                    percentile(nanos, 99) / 1e6,
                    nanos.size()));
        });
        return String.join(", ", parts);
    }

    /** The nearest-rank percentile of sorted {@code values}. */
    static long percentile(List<Long> sorted, double p) {
        int rank = (int) Math.ceil(p / 100 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    /** Restarts nodes whose process is gone (a crash the nemesis did not cause is noted). */
    private void restartDead(NsCluster cluster) throws IOException {
        for (NsNode n : cluster.nodes()) {
            if (!n.isAlive()) {
                notes.add("n" + n.index() + " had exited by itself; restarted for the final checks");
                event("restart dead n" + n.index());
                try {
                    n.start(0).join();
                } catch (RuntimeException e) {
                    notes.add("n" + n.index() + " did not restart: " + e.getMessage());
                }
            }
        }
    }

    /** Waits until every node answers a read with ack=3 (all nodes see each other); false on timeout. */
    private boolean awaitHealthy(NsCluster cluster, List<NodeApi> apis, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        for (NodeApi api : apis) {
            Duration left = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 200_000_000L));
            try {
                await().atMost(left).pollInterval(Duration.ofMillis(100)).until(() -> {
                    HttpResponse<String> r = api.raw("GET", "/v0/entity?id=health&ack=" + cluster.size());
                    return r != null && (r.statusCode() == 404 || r.statusCode() == 200);
                });
            } catch (ConditionTimeoutException e) {
                return false;
            }
        }
        return true;
    }

    /** Flushes iptables rules and qdiscs a previous run may have left in the namespaces. */
    private void resetNetwork() {
        for (int i = 0; i < lab.nodes(); i++) {
            lab.exec(i, "iptables", "-F");
            List<String> del = new ArrayList<>(NetworkLab.inNamespace(i));
            del.addAll(List.of("tc", "qdisc", "del", "dev", "eth0", "root"));
            Shell.tryRun(del.toArray(String[]::new));
        }
    }

    private void saveFailures(
            History history,
            Map<String, Verdict> verdicts,
            Map<String, List<Op>> registers,
            List<Op> setOps,
            NsCluster cluster)
            throws IOException {
        boolean anyFailed = false;
        for (Map.Entry<String, Verdict> v : verdicts.entrySet()) {
            if (v.getValue().pass()) {
                continue;
            }
            anyFailed = true;
            String file = v.getKey().replaceAll("[^a-z]+", "-");
            Files.write(dir.resolve(file + ".problems.txt"), v.getValue().problems(), StandardCharsets.UTF_8);
            if (v.getKey().equals(LINEARIZABLE)) {
                for (String problem : v.getValue().problems()) {
                    String key = problem.substring(4, problem.indexOf(':'));
                    History.write(
                            dir.resolve("history-" + key + ".txt"),
                            nemesis.name() + ", key " + key,
                            registers.get(key),
                            history.originNanos());
                }
            }
        }
        if (anyFailed) {
            History.write(
                    dir.resolve("history-all.txt"),
                    nemesis.name() + ", every operation",
                    history.ops(),
                    history.originNanos());
            History.write(dir.resolve("history-set.txt"), nemesis.name() + ", set keys", setOps, history.originNanos());
        } else {
            for (NsNode n : cluster.nodes()) { // keep the logs of failing runs only
                Files.deleteIfExists(n.dataDir().resolveSibling(n.dataDir().getFileName() + ".log"));
            }
        }
    }

    private void event(String what) {
        events.add(String.format("%10.3f %s", (System.nanoTime() - origin) / 1e6, what));
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
