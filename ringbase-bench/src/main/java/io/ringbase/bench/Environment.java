package io.ringbase.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The facts a report states about where and how it ran: machine, JDK, heaps, commit, flags, tools, idle CPU. */
public final class Environment {

    private Environment() {}

    /**
     * Name/value rows for the report.
     *
     * @param tools   versions of the load generator and profiler, e.g. {@code oha 1.16.0}
     * @param idlePct the share of CPU time idle just before the run, in percent
     */
    public static List<String[]> describe(BenchConfig config, List<String> tools, int idlePct) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "date", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'"))
        });
        rows.add(new String[] {
            "machine",
            Runtime.getRuntime().availableProcessors() + " CPUs, " + cpuModel() + ", " + memory() + ", "
                    + System.getProperty("os.name") + " " + System.getProperty("os.version")
        });
        rows.add(new String[] {
            "JDK",
            System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                    + System.getProperty("java.home") + ")"
        });
        String nodeHeap = System.getenv().getOrDefault("RINGBASE_HEAP", "128m");
        rows.add(new String[] {
            "heap",
            config.url() != null
                    ? "node: (running node, unknown); bench: " + benchHeap()
                    : "node: -Xmx" + nodeHeap + " (launcher default); bench process: " + benchHeap()
        });
        rows.add(new String[] {
            "commit",
            git("rev-parse", "--short", "HEAD") + " (" + git("rev-parse", "--abbrev-ref", "HEAD") + ")"
                    + (git("status", "--porcelain").isEmpty() ? "" : ", working tree has uncommitted changes")
        });
        rows.add(new String[] {"command", "`bin/ringbase bench " + String.join(" ", config.commandLine()) + "`"});
        rows.add(new String[] {
            "target",
            config.url() != null
                    ? config.url().toString()
                    : config.clusterSize() + " fresh local node(s), pinned to CPU " + config.serverCpu()
        });
        rows.add(new String[] {"tools", String.join("; ", tools)});
        rows.add(new String[] {
            "layout",
            config.ycsb() != null
                    ? "YCSB client JVM unpinned"
                    : config.loadGenerator().name().toLowerCase(java.util.Locale.ROOT) + " pinned to CPU "
                            + config.loadCpu() + (config.url() == null ? ", nodes to CPU " + config.serverCpu() : "")
        });
        rows.add(new String[] {
            "workload",
            config.ycsb() != null
                    ? String.format(
                            "YCSB core workload %s, %,d records, %,d operations, %d client threads",
                            config.ycsb(), config.ycsbRecords(), config.ycsbOps(), config.ycsbThreads())
                    : config.runName() + ", keys " + config.keys().name().toLowerCase(Locale.ROOT) + ", values "
                            + config.valueSize() + " bytes, " + config.connections() + " connections, prefill "
                            + (config.workload().readsPrefilledKeys() && config.ycsb() == null
                                    ? config.prefill() + " keys"
                                    : "none")
                            + (config.ack() > 0 ? ", ack=" + config.ack() + " from=" + config.from() : "")
        });
        rows.add(new String[] {
            "idle before run",
            idlePct + "% of all CPU time over 1 s"
                    + (idlePct < 90 ? " (WARNING: other processes were busy; figures are skewed)" : "")
        });
        return rows;
    }

    /** Percent of CPU time idle over one second, from {@code /proc/stat} (100 when it cannot be read). */
    public static int idlePercent() {
        try {
            long[] a = cpuTimes();
            Thread.sleep(1000);
            long[] b = cpuTimes();
            long total = 0;
            for (int i = 0; i < a.length; i++) {
                total += b[i] - a[i];
            }
            long idle = (b[3] - a[3]) + (a.length > 4 ? b[4] - a[4] : 0);
            return total <= 0 ? 100 : (int) (100 * idle / total);
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    private static long[] cpuTimes() throws IOException {
        String line = Files.readAllLines(Path.of("/proc/stat")).getFirst();
        String[] f = line.trim().split("\\s+");
        long[] v = new long[Math.min(8, f.length - 1)];
        for (int i = 0; i < v.length; i++) {
            v[i] = Long.parseLong(f[i + 1]);
        }
        return v;
    }

    private static String benchHeap() {
        return "-Xmx" + (Runtime.getRuntime().maxMemory() >> 20) + "m";
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private static String memory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal"))
                    .map(l -> (Long.parseLong(l.replaceAll("\\D", "")) >> 20) + " GiB memory")
                    .findFirst()
                    .orElse("");
        } catch (IOException | RuntimeException e) {
            return "memory unknown";
        }
    }

    private static String git(String... args) {
        List<String> cmd =
                new ArrayList<>(List.of("git", "-C", NodeLauncher.home().toString()));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 ? out : "unknown";
        } catch (IOException | InterruptedException e) {
            return "unknown";
        }
    }
}
