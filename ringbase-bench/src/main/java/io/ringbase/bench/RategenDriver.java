package io.ringbase.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs rategen ({@code bench/rategen/rategen.c}, wrk2's constant-rate model: every latency measured from the
 * request's intended send time) and reads its per-request records into a {@link LoadResult}. Several specs
 * run as parallel rategen processes, pinned to one CPU with {@code taskset} when that is available.
 *
 * <p>Why not oha: oha keeps every result in one growing vector and stalls for 20-100 ms each time it doubles,
 * and its 1 ms pacing gives it a p99 of several ms of its own at 40,000 req/s (bench/RESULTS.md, 2026-11-26 and
 * 2026-11-21). rategen allocates nothing after start and writes its records through a fixed buffer.
 */
public final class RategenDriver implements LoadGenerator {

    /** Seconds past the schedule's end that rategen waits for the last answers (oha's {@code -t 10s}). */
    static final int GRACE_S = 10;
    /** Bytes of one record of rategen's {@code -o} file. */
    static final int RECORD_BYTES = 12;

    private static final Pattern SLOTS = Pattern.compile("^RESULT .*\\bslots=(\\d+)", Pattern.MULTILINE);

    private final Path rategen;
    private final int cpu;
    private final Path workDir;
    private int runs;

    /**
     * @param rategen the rategen binary ({@link RategenInstaller#ensure})
     * @param cpu     CPU to pin rategen to, or -1 for no pinning
     * @param workDir where the record and output files of the runs go (deleted after reading)
     */
    public RategenDriver(Path rategen, int cpu, Path workDir) {
        this.rategen = rategen;
        this.cpu = cpu;
        this.workDir = workDir;
    }

    /** The command line of one spec, without pinning; its records go to {@code records}. */
    public List<String> command(LoadSpec spec, int durationS, Path records) {
        List<String> cmd = new ArrayList<>(List.of(rategen.toString(),
                "-R", String.format(Locale.ROOT, "%.1f", spec.rate()), "-d", Integer.toString(durationS),
                "-c", Integer.toString(spec.connections()), "-m", spec.method(), "-t", Integer.toString(GRACE_S),
                "-o", records.toString()));
        if (spec.body() != null) {
            cmd.addAll(List.of("-b", spec.body().toString()));
        }
        cmd.addAll(List.of(spec.source() == LoadSpec.UrlSource.NEW_KEYS ? "-u" : "-f", spec.url()));
        return cmd;
    }

    /** {@inheritDoc} The exception message holds rategen's output when it fails. */
    @Override
    public LoadResult run(List<LoadSpec> specs, int durationS, IntConsumer tick) throws IOException, InterruptedException {
        List<Process> procs = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        try {
            for (LoadSpec spec : specs) {
                int n = ++runs;
                Path records = workDir.resolve("rategen-" + n + ".bin");
                Path out = workDir.resolve("rategen-" + n + ".out");
                files.add(records);
                files.add(out);
                List<String> cmd = new ArrayList<>();
                if (cpu >= 0 && NodeLauncher.hasTaskset()) {
                    cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
                }
                cmd.addAll(command(spec, durationS, records));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start());
            }
            LoadResult total = LoadResult.empty(durationS);
            for (int i = 0; i < procs.size(); i++) {
                Process p = procs.get(i);
                int elapsed = 0;
                while (i == 0 && elapsed < durationS && !p.waitFor(1, TimeUnit.SECONDS)) {
                    tick.accept(++elapsed);
                }
                long limitS = durationS + GRACE_S + 60L - elapsed;
                if (!p.waitFor(limitS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("rategen did not finish within " + (durationS + GRACE_S + 60) + " s");
                }
                String output = Files.readString(files.get(2 * i + 1));
                if (p.exitValue() != 0) {
                    throw new IOException("rategen exited with " + p.exitValue() + ": " + output.strip());
                }
                LoadResult one = LoadResult.empty(durationS);
                long answered = readRecords(files.get(2 * i), one);
                one.recordNoAnswer(slots(output) - answered);
                total.addOperation(specs.get(i).method(), one);
            }
            return total;
        } finally {
            for (Process p : procs) {
                p.destroyForcibly();
            }
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
    }

    /**
     * Requests in rategen's schedule, from the {@code slots=} field of its {@code RESULT} line.
     *
     * @throws IOException if the output has no such line
     */
    static long slots(String output) throws IOException {
        Matcher m = SLOTS.matcher(output);
        if (!m.find()) {
            throw new IOException("rategen printed no RESULT line with slots=: " + output.strip());
        }
        return Long.parseLong(m.group(1));
    }

    /**
     * Adds every record of a rategen {@code -o} file into {@code into}: 12 bytes each, little-endian u32 intended
     * send time (microseconds since the schedule's start), u32 latency (microseconds), u16 status, u16 zero.
     *
     * @return the number of records
     * @throws IOException if the file cannot be read or ends inside a record
     */
    static long readRecords(Path file, LoadResult into) throws IOException {
        long count = 0;
        byte[] chunk = new byte[RECORD_BYTES * 4096];
        ByteBuffer buf = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            int n;
            while ((n = in.readNBytes(chunk, 0, chunk.length)) > 0) {
                if (n % RECORD_BYTES != 0) {
                    throw new IOException(file + " ends inside a record (" + n + " bytes in its last chunk)");
                }
                for (int off = 0; off < n; off += RECORD_BYTES) {
                    long startUs = Integer.toUnsignedLong(buf.getInt(off));
                    long latencyUs = Integer.toUnsignedLong(buf.getInt(off + 4));
                    int status = Short.toUnsignedInt(buf.getShort(off + 8));
                    into.record(startUs / 1e6, latencyUs, status);
                    count++;
                }
            }
        }
        return count;
    }

    @Override
    public String describe() {
        return version() + " (bench/rategen/rategen.c; constant rate in wrk2's model, latency from the intended send time)";
    }

    /** rategen's version line, e.g. {@code rategen 2}. */
    public String version() {
        try {
            Process p = new ProcessBuilder(rategen.toString(), "-V").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes()).strip();
            p.waitFor();
            return v;
        } catch (IOException | InterruptedException e) {
            return "rategen (version unknown: " + e.getMessage() + ")";
        }
    }
}
