package io.ringbase.faults;

import static org.awaitility.Awaitility.await;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.nemesis.FullDiskNemesis;
import io.ringbase.faults.nemesis.MembershipNemesis;
import io.ringbase.faults.nemesis.Nemesis;
import io.ringbase.faults.nemesis.PartitionNemesis;
import io.ringbase.faults.nemesis.ProcessNemesis;
import io.ringbase.faults.nemesis.SlowNetworkNemesis;
import io.ringbase.faults.net.NetworkLab;
import io.ringbase.faults.net.Shell;
import io.ringbase.faults.net.Tools;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Runs every fault in turn on one {@link NetworkLab} and writes the fault x checker table
 * ({@link Report}). Before anything: root and tools ({@link Tools#ensure}), and what a crashed run left
 * (node processes by recorded pid, tmpfs mounts under the output directory, namespaces and links).
 */
public final class FaultSuite {

    private FaultSuite() {}

    /**
     * One row of the suite: a nemesis, and what happens to tombstones in its run.
     *
     * @param nemesis    the fault
     * @param tombstones {@link FaultRun.Tombstones#PURGED} to drop every tombstone after the first repair
     *                   and repair again ({@link PurgePhase})
     */
    record Fault(Nemesis nemesis, FaultRun.Tombstones tombstones) {

        /** The row's name (a nemesis' name may change once it is prepared). */
        String name() {
            return FaultRun.name(nemesis, tombstones);
        }
    }

    /**
     * The faults, one row each, in run order. The tombstone purge rides on the single-node kill: a killed
     * node misses deletes, which with a 1 s hint window mostly only repair delivers. Not here yet: a wiped
     * disk (SIGKILL, delete the node's data directory, restart it empty), which needs the replacement of a
     * node (streaming its ranges to it before it serves reads); {@link io.ringbase.faults.cluster.NsNode}
     * has every other piece (kill, {@code dataDir()}, start).
     */
    static List<Fault> faults() {
        return List.of(
                new Fault(Nemesis.none(), FaultRun.Tombstones.KEPT),
                new Fault(new ProcessNemesis(ProcessNemesis.Kind.KILL), FaultRun.Tombstones.PURGED),
                new Fault(new ProcessNemesis(ProcessNemesis.Kind.KILL_MAJORITY), FaultRun.Tombstones.KEPT),
                new Fault(new ProcessNemesis(ProcessNemesis.Kind.PAUSE), FaultRun.Tombstones.KEPT),
                new Fault(new PartitionNemesis(PartitionNemesis.Kind.MAJORITY_MINORITY), FaultRun.Tombstones.KEPT),
                new Fault(new PartitionNemesis(PartitionNemesis.Kind.BRIDGE), FaultRun.Tombstones.KEPT),
                new Fault(new PartitionNemesis(PartitionNemesis.Kind.ASYMMETRIC), FaultRun.Tombstones.KEPT),
                new Fault(new PartitionNemesis(PartitionNemesis.Kind.CLIENT), FaultRun.Tombstones.KEPT),
                new Fault(new SlowNetworkNemesis(), FaultRun.Tombstones.KEPT),
                new Fault(new ProcessNemesis(ProcessNemesis.Kind.CLOCK_SKEW), FaultRun.Tombstones.KEPT),
                new Fault(new FullDiskNemesis(), FaultRun.Tombstones.KEPT));
    }

    /**
     * The full suite's faults: {@link #faults()} and the membership changes ({@link MembershipNemesis}: the
     * cluster grown 3 to 5 and shrunk back, a join while a founding node is killed, and a wiped disk replaced).
     * The short suite leaves them out: one cycle takes longer than every other row's run, so the build runs
     * two of them in their own test ({@code MembershipFaultTest}: {@link #membershipFault()},
     * {@link #wipeReplaceFault()}).
     */
    static List<Fault> fullFaults() {
        List<Fault> out = new ArrayList<>(faults());
        out.add(membershipFault());
        out.add(new Fault(new MembershipNemesis(MembershipNemesis.Kind.JOIN_DURING_KILL), FaultRun.Tombstones.KEPT));
        out.add(wipeReplaceFault());
        return out;
    }

    /** A wiped disk followed by a replacement ({@link MembershipNemesis.Kind#WIPE_REPLACE}). */
    static Fault wipeReplaceFault() {
        return new Fault(new MembershipNemesis(MembershipNemesis.Kind.WIPE_REPLACE), FaultRun.Tombstones.KEPT);
    }

    /** The cluster grown from 3 nodes to 5 and shrunk back under load, with no other fault. */
    static Fault membershipFault() {
        return new Fault(new MembershipNemesis(MembershipNemesis.Kind.GROW_SHRINK), FaultRun.Tombstones.KEPT);
    }

    /**
     * The faults whose name contains one of the comma-separated, case-insensitive {@code filter}'s parts
     * ({@code -Dringbase.faults.only=kill,client}), or all if it is blank: for a developer's run.
     *
     * @throws IllegalArgumentException if the filter matches no fault
     */
    static List<Fault> selected(List<Fault> faults, String filter) {
        if (filter.isBlank()) {
            return faults;
        }
        List<String> parts = new ArrayList<>();
        for (String p : filter.split(",")) {
            if (!p.isBlank()) {
                parts.add(p.strip().toLowerCase(Locale.ROOT));
            }
        }
        List<Fault> out = faults.stream()
                .filter(f -> parts.stream()
                        .anyMatch(p -> f.name().toLowerCase(Locale.ROOT).contains(p)))
                .toList();
        if (out.isEmpty()) {
            throw new IllegalArgumentException("ringbase.faults.only=" + filter + " matches no fault");
        }
        return out;
    }

    /**
     * Runs {@code faults}, those of them the {@code ringbase.faults.only} filter selects if
     * {@code filtered}; the results, also written to {@code outputDir/report.md} and printed.
     */
    static List<FaultResult> run(SuiteSettings settings, List<Fault> faults, boolean filtered) throws Exception {
        List<Fault> chosen = filtered ? selected(faults, System.getProperty("ringbase.faults.only", "")) : faults;
        try (FileChannel lockFile =
                        FileChannel.open(MACHINE_LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock _ = machineLock(lockFile)) {
            return runLocked(settings, chosen);
        }
    }

    /**
     * The machine-wide lock every suite run holds: the lab's names (namespaces {@code rbf-*}, addresses
     * 10.77.0.0/24) are global, and a run removes what it takes for a crashed run's leftovers, so two
     * runs at once (two worktrees' builds on one machine) break each other: another worktree's suite
     * started mid-run once, and this run's latency+loss scan timed out and its full-disk nodes found port
     * 8080 taken.
     */
    static final Path MACHINE_LOCK = Path.of(System.getProperty("java.io.tmpdir"), "ringbase-fault-suite.lock");
    /** How long a run waits for another to finish before it fails, ms. */
    static final long MACHINE_LOCK_WAIT_MS = 30 * 60_000;

    private static FileLock machineLock(FileChannel lockFile) throws IOException {
        FileLock lock = lockFile.tryLock();
        if (lock != null) {
            return lock;
        }
        System.out.println("fault suite: waiting for another run on this machine (" + MACHINE_LOCK + ")");
        try {
            return await().atMost(Duration.ofMillis(MACHINE_LOCK_WAIT_MS))
                    .pollInterval(Duration.ofSeconds(1))
                    .pollInSameThread()
                    .until(lockFile::tryLock, Objects::nonNull);
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException(
                    "another fault-suite run held " + MACHINE_LOCK + " for " + MACHINE_LOCK_WAIT_MS / 60_000 + " min");
        }
    }

    private static List<FaultResult> runLocked(SuiteSettings settings, List<Fault> faults) throws Exception {
        Tools.ensure();
        Path out = settings.outputDir().toAbsolutePath();
        Files.createDirectories(out);
        Path pidFile = out.resolve("node-pids");
        NsCluster.killLeftovers(pidFile);
        unmountLeftovers(out);
        List<FaultResult> results = new ArrayList<>();
        long started = System.nanoTime();
        try (NetworkLab lab = NetworkLab.create(SuiteSettings.NODES)) {
            long seed = settings.seed();
            for (Fault fault : faults) {
                Path dir = out.resolve(fault.name().replaceAll("[^a-z]+", "-").replaceAll("^-|-$", ""));
                long t = System.nanoTime();
                FaultResult r;
                try {
                    r = new FaultRun(settings, lab, fault.nemesis(), fault.tombstones(), dir, pidFile, seed++).run();
                } catch (Exception | AssertionError e) {
                    r = FaultResult.runFailed(fault.name(), e);
                    Files.createDirectories(dir);
                    Files.writeString(dir.resolve("run-error.txt"), stackTrace(e), StandardCharsets.UTF_8);
                }
                results.add(r);
                System.out.printf(
                        "fault suite: %s done in %.1f s: %s%n",
                        r.fault(), (System.nanoTime() - t) / 1e9, r.pass() ? "pass" : "FAIL: " + failing(r));
            }
        } finally {
            NsCluster.killLeftovers(pidFile);
        }
        String report = Report.markdown(settings, results, (System.nanoTime() - started) / 1_000_000_000L);
        Files.writeString(out.resolve("report.md"), report, StandardCharsets.UTF_8);
        System.out.println(report);
        return results;
    }

    /** The failing checkers and the failure notes of a run, for the console. */
    static String failing(FaultResult r) {
        List<String> out = new ArrayList<>();
        r.verdicts().forEach((checker, v) -> {
            if (!v.pass()) {
                out.add(checker + " (" + v.summary() + ")");
            }
        });
        r.failures().forEach(n -> out.add(n.text()));
        return String.join("; ", out);
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter w = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    /** Unmounts tmpfs mounts under {@code out} (a full-disk run that crashed). */
    static void unmountLeftovers(Path out) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/mounts"), StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[2].equals("tmpfs") && f[1].startsWith(out.toString() + "/")) {
                Shell.tryRun("umount", f[1]);
            }
        }
    }
}
