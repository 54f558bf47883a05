package io.ringbase.bench.ycsb;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs a YCSB core workload (A-F, the parameters of YCSB's {@code workloads/workload[a-f]} files) against the
 * target with {@link RingbaseHttpDb}: {@code site.ycsb.Client -load}, then {@code -t}, each in a child JVM on
 * this process's class path (YCSB's client calls {@code System.exit}). Returns YCSB's own output of both
 * phases. Each phase is bounded by {@value #MAX_PHASE_S} s ({@code maxexecutiontime}).
 */
public final class YcsbRunner {

    /** The YCSB core version on the class path. */
    public static final String YCSB_VERSION = "0.17.0";
    /** Longest a phase may run, in seconds. */
    static final int MAX_PHASE_S = 300;

    private YcsbRunner() {}

    /** The properties of core workload {@code letter} (A-F) as in YCSB's workload files. */
    public static Map<String, String> workload(String letter) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("workload", "site.ycsb.workloads.CoreWorkload");
        p.put("readallfields", "true");
        p.put("readproportion", "0");
        p.put("updateproportion", "0");
        p.put("scanproportion", "0");
        p.put("insertproportion", "0");
        p.put("requestdistribution", "zipfian");
        switch (letter) {
            case "A" -> {
                p.put("readproportion", "0.5");
                p.put("updateproportion", "0.5");
            }
            case "B" -> {
                p.put("readproportion", "0.95");
                p.put("updateproportion", "0.05");
            }
            case "C" -> p.put("readproportion", "1");
            case "D" -> {
                p.put("readproportion", "0.95");
                p.put("insertproportion", "0.05");
                p.put("requestdistribution", "latest");
            }
            case "E" -> {
                p.put("scanproportion", "0.95");
                p.put("insertproportion", "0.05");
                p.put("maxscanlength", "100");
                p.put("scanlengthdistribution", "uniform");
            }
            case "F" -> {
                p.put("readproportion", "0.5");
                p.put("readmodifywriteproportion", "0.5");
            }
            default -> throw new IllegalArgumentException("YCSB core workloads are A-F, got " + letter);
        }
        return p;
    }

    /**
     * Loads {@code records} records, then runs {@code ops} operations of workload {@code letter}.
     *
     * @return YCSB's output of the load and the run phase
     * @throws IOException when a phase fails or passes its time limit (the message holds the end of its output)
     */
    public static String run(
            String letter,
            List<URI> urls,
            long records,
            long ops,
            int threads,
            int ack,
            int from,
            Path work,
            PrintStream log)
            throws IOException, InterruptedException {
        Map<String, String> p = workload(letter);
        p.put("recordcount", Long.toString(records));
        p.put("operationcount", Long.toString(ops));
        p.put("threadcount", Integer.toString(threads));
        p.put("ringbase.urls", urls.stream().map(URI::toString).collect(Collectors.joining(",")));
        p.put("ringbase.ack", Integer.toString(ack));
        p.put("ringbase.from", Integer.toString(from));
        p.put("measurementtype", "hdrhistogram");
        p.put("hdrhistogram.percentiles", "50,90,99,99.9");
        p.put("maxexecutiontime", Integer.toString(MAX_PHASE_S));
        // a failed insert otherwise ends its client thread for the rest of the load
        p.put("core_workload_insertion_retry_limit", "3");
        Path props = work.resolve("ycsb-" + letter + ".properties");
        try (Writer w = Files.newBufferedWriter(props)) {
            for (Map.Entry<String, String> e : p.entrySet()) {
                w.write(e.getKey() + "=" + e.getValue() + "\n");
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("# properties\n");
        p.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
        for (String phase : List.of("-load", "-t")) {
            log.printf(
                    "bench: YCSB %s workload %s (%,d records, %,d operations, %d threads)%n",
                    phase, letter, records, ops, threads);
            out.append("\n# ycsb ").append(phase).append('\n').append(phase(phase, props, work));
        }
        return out.toString();
    }

    private static String phase(String phase, Path props, Path work) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                "site.ycsb.Client",
                phase,
                "-db",
                RingbaseHttpDb.class.getName(),
                "-P",
                props.toString(),
                "-s"));
        Path stdout = work.resolve("ycsb" + phase + ".out");
        Path stderr = work.resolve("ycsb" + phase + ".err");
        Process proc = new ProcessBuilder(cmd)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        if (!proc.waitFor(MAX_PHASE_S + 120L, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
            throw new IOException("YCSB " + phase + " did not finish within " + (MAX_PHASE_S + 120) + " s");
        }
        String text = Files.readString(stdout);
        List<String> err = Files.readAllLines(stderr);
        List<String> failures =
                err.stream().filter(l -> l.startsWith("RingbaseHttpDb:")).toList();
        if (!failures.isEmpty()) {
            text += "\n# request failures the binding saw (first " + failures.size() + ")\n"
                    + String.join("\n", failures) + "\n";
        }
        if (proc.exitValue() != 0) {
            throw new IOException("YCSB " + phase + " exited with " + proc.exitValue() + ":\n"
                    + String.join("\n", err.subList(Math.max(0, err.size() - 15), err.size())));
        }
        return text;
    }
}
