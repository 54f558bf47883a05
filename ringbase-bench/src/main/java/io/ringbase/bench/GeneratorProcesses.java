package io.ringbase.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * What both load generators share: one process per spec, started side by side and pinned to the load CPU
 * with {@code taskset} when that is available, waited for with a tick a second, each one's results read
 * from its output file and merged by operation. Subclasses give the command line and the reader.
 */
abstract class GeneratorProcesses implements LoadGenerator {

    private final String name;
    private final Path binary;
    private final int cpu;
    private final Path workDir;
    private int runs;

    /**
     * @param name    the generator's name, for file names and messages
     * @param binary  its executable
     * @param cpu     CPU to pin it to, or -1 for no pinning
     * @param workDir where the output and console files of the runs go (deleted after reading)
     */
    GeneratorProcesses(String name, Path binary, int cpu, Path workDir) {
        this.name = name;
        this.binary = binary;
        this.cpu = cpu;
        this.workDir = workDir;
    }

    /** The executable. */
    final Path binary() {
        return binary;
    }

    /** The command line of one spec, without pinning; its per-request results go to {@code output}. */
    abstract List<String> command(LoadSpec spec, int durationS, Path output, boolean pinned);

    /**
     * Reads one finished process's results.
     *
     * @param output  its per-request output file
     * @param console what it printed (stdout and stderr)
     * @throws IOException if the output cannot be read
     */
    abstract LoadResult read(LoadSpec spec, int durationS, Path output, String console) throws IOException;

    /** Seconds past the run's length that a process may take to finish before it counts as hung. */
    abstract int graceS();

    /** {@inheritDoc} The exception message holds the generator's console output when it fails. */
    @Override
    public final LoadResult run(List<LoadSpec> specs, int durationS, IntConsumer tick)
            throws IOException, InterruptedException {
        List<Process> procs = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        List<Path> consoles = new ArrayList<>();
        boolean pinned = cpu >= 0 && NodeLauncher.hasTaskset();
        try {
            for (LoadSpec spec : specs) {
                int n = ++runs;
                Path output = workDir.resolve(name + "-" + n + ".out");
                Path console = workDir.resolve(name + "-" + n + ".console");
                outputs.add(output);
                consoles.add(console);
                List<String> cmd = new ArrayList<>();
                if (pinned) {
                    cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
                }
                cmd.addAll(command(spec, durationS, output, pinned));
                procs.add(new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(console.toFile())
                        .start());
            }
            LoadResult total = LoadResult.empty(durationS);
            long limitS = durationS + graceS() + 60L;
            for (int i = 0; i < procs.size(); i++) {
                Process p = procs.get(i);
                int elapsed = 0;
                while (i == 0 && elapsed < durationS && !p.waitFor(1, TimeUnit.SECONDS)) {
                    tick.accept(++elapsed);
                }
                if (!p.waitFor(limitS - elapsed, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(name + " did not finish within " + limitS + " s");
                }
                String console = Files.readString(consoles.get(i));
                if (p.exitValue() != 0) {
                    throw new IOException(name + " exited with " + p.exitValue() + ": " + console.strip());
                }
                total.addOperation(specs.get(i).method(), read(specs.get(i), durationS, outputs.get(i), console));
            }
            return total;
        } finally {
            for (Process p : procs) {
                p.destroyForcibly();
            }
            for (Path f : outputs) {
                Files.deleteIfExists(f);
            }
            for (Path f : consoles) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** The generator's version line (what {@code binary flag} prints), or a note that it is unknown. */
    final String version(String flag) {
        try {
            Process p = new ProcessBuilder(binary.toString(), flag)
                    .redirectErrorStream(true)
                    .start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            return v;
        } catch (IOException | InterruptedException e) {
            return name + " (version unknown: " + e.getMessage() + ")";
        }
    }
}
