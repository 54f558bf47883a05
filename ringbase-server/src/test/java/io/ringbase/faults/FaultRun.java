package io.ringbase.faults;

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
import io.ringbase.faults.nemesis.ChangeWindow;
import io.ringbase.faults.nemesis.Finding;
import io.ringbase.faults.nemesis.Nemesis;
import io.ringbase.faults.net.NetworkLab;
import io.ringbase.faults.net.Shell;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One fault's run: a fresh cluster, the workload, the nemesis alternating injections and heals for
 * {@link SuiteSettings#faultSeconds()}, a final heal, then the final reads, repair (and, for
 * {@link Tombstones#PURGED}, the {@link PurgePhase}) and scans, and the checkers. Anything else that goes
 * wrong (a node that exits by itself, a cluster that does not heal, a final read that keeps failing, a
 * repair that does not finish, what the nemesis found, such as a membership change that did not finish) is
 * a {@link Note.Severity#FAILURE} note, which fails the run as a failing checker does; so is a client request
 * that failed during a membership change with no other fault ({@link ChangeRequests}). Failing checkers'
 * histories are written under {@code outputDir/<fault>/}.
 */
final class FaultRun {

    /** Checker names: the report's columns, in order. */
    static final String LINEARIZABLE = "linearizable registers";

    static final String NO_LOST_WRITES = "no lost acked writes";
    static final String NO_RESURRECTION = "no resurrection after repair";
    static final String SCANS_COMPLETE = "scans complete";

    /** The serve flags of every node: small memtables, so the runs flush and compact. */
    static final List<String> NODE_FLAGS = List.of("--memtable-size", "4m");

    /** Time the final reads of a run may spend retrying reads that failed (ms): the cluster is healed then. */
    static final long FINAL_READ_RETRY_BUDGET_MS = 30_000;
    /** Time one final read may spend retrying (ms), so that one failing key does not spend the whole budget. */
    static final long FINAL_READ_RETRY_PER_READ_MS = 5_000;
    /** Pause between two attempts of a failed final read (ms). */
    static final long FINAL_READ_RETRY_INTERVAL_MS = 200;

    /** What happens to tombstones in a run. */
    enum Tombstones {
        /** The default grace (10 days): no tombstone is dropped during the run. */
        KEPT,
        /**
         * A 1 s hint window during the faults, so that repair rather than hints delivers most of what a node
         * missed; after the first repair the {@link PurgePhase} drops every tombstone and repairs again.
         */
        PURGED;

        /** The serve flags of the run's nodes besides {@link #NODE_FLAGS}. */
        List<String> flags() {
            return switch (this) {
                case KEPT -> List.of();
                case PURGED -> List.of("--hint-window", "1s");
            };
        }
    }

    private final SuiteSettings settings;
    private final NetworkLab lab;
    private final Nemesis nemesis;
    private final Tombstones tombstones;
    private final Path dir;
    private final Path pidFile;
    private final Random random;
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    /** {inject, heal} nanoTime of each fault window. */
    private final List<long[]> faultWindows = new ArrayList<>();

    private final List<Note> notes = new ArrayList<>();
    private final Set<String> notedExits = new HashSet<>();
    private long origin;

    FaultRun(
            SuiteSettings settings,
            NetworkLab lab,
            Nemesis nemesis,
            Tombstones tombstones,
            Path dir,
            Path pidFile,
            long seed) {
        this.settings = settings;
        this.lab = lab;
        this.nemesis = nemesis;
        this.tombstones = tombstones;
        this.dir = dir;
        this.pidFile = pidFile;
        this.random = new Random(seed);
    }

    /** The report row's name: the nemesis', and the tombstone purge if the run has one. */
    static String name(Nemesis nemesis, Tombstones tombstones) {
        return tombstones == Tombstones.PURGED ? nemesis.name() + " + tombstone purge" : nemesis.name();
    }

    FaultResult run() throws Exception {
        deleteTree(dir);
        Files.createDirectories(dir);
        resetNetwork();
        List<String> flags = new ArrayList<>(NODE_FLAGS);
        flags.addAll(tombstones.flags());
        String protocol = System.getProperty("ringbase.faults.writeProtocol", "");
        if (!protocol.isBlank()) { // e.g. abd, to compare with the node's default
            flags.addAll(List.of("--write-protocol", protocol));
        }
        NsCluster cluster = new NsCluster(SuiteSettings.NODES, dir, pidFile, flags, nemesis.membership());
        origin = System.nanoTime();
        History history = new History(origin);
        List<NodeApi> apis = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            apis.add(new NodeApi(cluster.url(i)));
        }
        ClusterAdmin admin = new ClusterAdmin(apis, notes, this::event);
        Workload workload =
                new Workload(apis, history, settings.clients(), random.nextLong(), settings.registerKeyLifetimeMs());
        Checked checked;
        try {
            nemesis.prepare(cluster, lab);
            cluster.start();
            if (!admin.awaitHealthy(cluster.size(), 60_000)) {
                throw new IllegalStateException("the fresh cluster did not answer ack=3 reads within 60 s");
            }
            event("cluster up");
            workload.start();
            Thread.sleep(1_000); // the clients open their connections before the first fault
            long end = System.nanoTime() + settings.faultSeconds() * 1_000_000_000L;
            while (System.nanoTime() < end) {
                event("inject: " + nemesis.inject(cluster, lab, random));
                long injected = System.nanoTime();
                Thread.sleep(settings.activeMs()); // the fault lasts this long
                long healing = System.nanoTime();
                event("heal: " + nemesis.heal(cluster, lab));
                faultWindows.add(new long[] {injected, healing});
                Thread.sleep(settings.quietMs()); // healthy between faults
            }
            String last = nemesis.heal(cluster, lab);
            if (last != null) {
                event("heal: " + last);
            }
            Thread.sleep(2_000); // clients run on a healed cluster for a moment
            workload.stop();
            event("clients stopped");
            for (Finding f : nemesis.findings()) {
                notes.add(f.failure() ? Note.failure(f.text()) : Note.info(f.text()));
            }
            for (ChangeWindow w : nemesis.changeWindows()) {
                faultWindows.add(new long[] {w.startNanos(), w.endNanos()});
            }
            restartDead(cluster);
            if (!admin.awaitHealthy(cluster.size(), 60_000)) {
                notes.add(Note.failure("the cluster did not answer ack=3 reads on every node within 60 s of healing"));
            }
            checked = check(cluster, apis, admin, history);
        } finally {
            workload.stop();
            try {
                nemesis.heal(cluster, lab);
            } catch (Exception e) {
                notes.add(Note.failure("final heal failed: " + e));
            }
            cluster.close();
            nemesis.cleanup(cluster, lab);
            Files.write(dir.resolve("events.log"), events, StandardCharsets.UTF_8);
        }
        noteUnexpectedExits(cluster); // those while the checks ran (the nodes are gone now)
        return new FaultResult(
                name(nemesis, tombstones),
                checked.verdicts(),
                checked.ok(),
                checked.failed(),
                checked.unknown(),
                notes,
                checked.faultLatency());
    }

    /**
     * The compare-and-set workload's figures, for the notes: conditional writes applied (201), refused
     * (412), unknown and failed; they are checked as registers with the linearizability checker.
     */
    static String casCounts(List<Op> all) {
        int applied = 0;
        int refused = 0;
        int unknown = 0;
        int failed = 0;
        for (Op op : all) {
            if (op.f() == Op.Fn.CAS_REFUSED) {
                refused++;
            } else if (op.f() == Op.Fn.CAS) {
                switch (op.outcome()) {
                    case OK -> applied++;
                    case UNKNOWN -> unknown++;
                    case FAIL -> failed++;
                }
            }
        }
        return "compare-and-set: " + applied + " applied, " + refused + " refused (412), " + unknown + " unknown, "
                + failed + " failed";
    }

    /** What {@link #check} found. */
    private record Checked(Map<String, Verdict> verdicts, int ok, int failed, int unknown, String faultLatency) {}

    private Checked check(NsCluster cluster, List<NodeApi> apis, ClusterAdmin admin, History history) throws Exception {
        FinalReads reads = new FinalReads(
                FINAL_READ_RETRY_BUDGET_MS, FINAL_READ_RETRY_PER_READ_MS, FINAL_READ_RETRY_INTERVAL_MS, notes);
        // final register reads through every node, appended to the history (sequential, after every client)
        List<String> registerKeys = new ArrayList<>();
        for (String key : history.byKey().keySet()) {
            if (Workload.isRegisterKey(key)) {
                registerKeys.add(key);
            }
        }
        for (String key : registerKeys) {
            for (int i = 0; i < apis.size(); i++) {
                NodeApi api = apis.get(i);
                long[] invoke = {0};
                NodeApi.Answer a = reads.read("final read of " + key + " through n" + i, () -> {
                    invoke[0] = System.nanoTime();
                    return api.get(key);
                });
                history.add(new Op(
                        "final@n" + i,
                        Op.Fn.READ,
                        key,
                        a.value(),
                        invoke[0],
                        System.nanoTime(),
                        a.outcome(),
                        a.note()));
            }
        }
        event("final register reads done");
        List<Op> all = history.ops();
        List<Op> setOps =
                all.stream().filter(op -> !Workload.isRegisterKey(op.key())).toList();
        Map<String, FinalRead> afterHeal = readSetKeys(reads, apis, setOps, false);
        event("final set reads done");
        ClusterAdmin.RepairTotals repaired = admin.repairEveryNode("repair");
        notes.add(Note.info("repair after healing moved " + (repaired.keysReceived() + repaired.keysSent()) + " keys"));
        if (tombstones == Tombstones.PURGED) {
            PurgePhase.run(cluster, admin, NODE_FLAGS, acknowledgedDeletes(setOps), notes, this::event);
        }
        Map<String, FinalRead> afterRepair = readSetKeys(reads, apis, setOps, true);
        Map<String, Map<String, String>> scans = new LinkedHashMap<>();
        for (int i = 0; i < apis.size(); i++) {
            NodeApi api = apis.get(i);
            scans.put(
                    "n" + i,
                    reads.call(
                            "scan of the set keys through n" + i,
                            () -> api.scan(Workload.SET_START, Workload.SET_END)));
        }
        event("scans done");
        reads.finish();

        Map<String, List<Op>> registers = new LinkedHashMap<>();
        history.byKey().forEach((k, ops) -> {
            if (Workload.isRegisterKey(k)) {
                registers.put(k, ops);
            }
        });
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        long t = System.nanoTime();
        verdicts.put(LINEARIZABLE, Linearizability.check(registers, Linearizability.DEFAULT_MAX_STEPS));
        long searchMs = (System.nanoTime() - t) / 1_000_000;
        notes.add(Note.info(keysAcrossAFault(registers) + " of " + registers.size()
                + " register keys used from before a fault's injection to after its heal; linearizability search "
                + searchMs + " ms"));
        notes.add(Note.info(casCounts(all)));
        verdicts.put(NO_LOST_WRITES, SetCheckers.noLostWrites(setOps, afterHeal));
        verdicts.put(NO_RESURRECTION, SetCheckers.noResurrection(setOps, afterRepair));
        verdicts.put(SCANS_COMPLETE, SetCheckers.scansComplete(setOps, scans));
        notes.addAll(ChangeRequests.notes(nemesis.changeWindows(), all, history.originNanos()));

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
        noteUnexpectedExits(cluster);
        notes.add(WriteRestamps.note(cluster.everyNode()));
        saveFailures(history, verdicts, registers, setOps, cluster);
        return new Checked(verdicts, ok, failed, unknown, FaultLatency.byCoordinator(all, faultWindows));
    }

    /** One quorum read per set key (or per deleted key), through the nodes in turn. */
    private static Map<String, FinalRead> readSetKeys(
            FinalReads reads, List<NodeApi> apis, List<Op> setOps, boolean deletedOnly) {
        Map<String, FinalRead> out = new LinkedHashMap<>();
        int i = 0;
        for (Op op : setOps) {
            if (out.containsKey(op.key()) || (deletedOnly && op.f() != Op.Fn.DELETE)) {
                continue;
            }
            int node = i++ % apis.size();
            NodeApi api = apis.get(node);
            NodeApi.Answer a = reads.read(
                    (deletedOnly ? "read after repair of deleted " : "final read of ") + op.key() + " through n" + node,
                    () -> api.get(op.key()));
            out.put(op.key(), new FinalRead(op.key(), a.outcome() == Op.Outcome.OK, a.value(), a.note()));
        }
        return out;
    }

    /** How many register keys the clients used both before a fault window began and after it ended. */
    private int keysAcrossAFault(Map<String, List<Op>> registers) {
        int across = 0;
        for (List<Op> ops : registers.values()) {
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (Op op : ops) {
                if (!op.process().startsWith("final")) {
                    first = Math.min(first, op.invokeNanos());
                    last = Math.max(last, op.completeNanos());
                }
            }
            for (long[] w : faultWindows) {
                if (first <= w[0] && last >= w[1]) {
                    across++;
                    break;
                }
            }
        }
        return across;
    }

    /** The set keys whose delete was acknowledged, in the order deleted. */
    private static List<String> acknowledgedDeletes(List<Op> setOps) {
        List<String> out = new ArrayList<>();
        for (Op op : setOps) {
            if (op.f() == Op.Fn.DELETE && op.outcome() == Op.Outcome.OK) {
                out.add(op.key());
            }
        }
        return out;
    }

    /** Notes, once each, every exit of a node's process that no nemesis or run asked for. */
    private void noteUnexpectedExits(NsCluster cluster) {
        for (NsNode n : cluster.everyNode()) {
            for (String exit : n.unexpectedExits()) {
                if (notedExits.add("n" + n.index() + " " + exit)) {
                    notes.add(Note.failure("n" + n.index() + " exited by itself: " + exit));
                }
            }
        }
    }

    /** Restarts nodes whose process is gone: a crash the nemesis did not cause, a failure of the run. */
    private void restartDead(NsCluster cluster) throws IOException {
        for (NsNode n : cluster.nodes()) {
            if (!n.isAlive()) {
                notes.add(Note.failure(
                        "n" + n.index() + " was not running after the last heal; restarted for the " + "final checks"));
                event("restart dead n" + n.index());
                try {
                    n.start(0).join();
                } catch (RuntimeException e) {
                    notes.add(Note.failure("n" + n.index() + " did not restart: " + e.getMessage()));
                }
            }
        }
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
        boolean anyFailed = notes.stream().anyMatch(Note::isFailure);
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
            for (NsNode n : cluster.everyNode()) { // keep the logs of failing runs only
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
