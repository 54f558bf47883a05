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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs rategen ({@code bench/rategen/rategen.c}, wrk2's constant-rate model: every latency measured from the
 * request's intended send time) and reads its per-request records into a {@link LoadResult}. Several specs
 * run as parallel rategen processes, pinned to one CPU with {@code taskset} when that is available.
 *
 * <p>Why not oha: oha keeps every result in one growing vector and stalls for 20-100 ms each time it doubles,
 * and its 1 ms pacing gives it a p99 of several ms of its own at 40,000 req/s. rategen allocates nothing after
 * start and writes its records through a fixed buffer.
 */
public final class RategenDriver extends GeneratorProcesses {

    /** Seconds past the schedule's end that rategen waits for the last answers (oha's {@code -t 10s}). */
    static final int GRACE_S = 10;
    /** Bytes of one record of rategen's {@code -o} file. */
    static final int RECORD_BYTES = 12;

    private static final Pattern SLOTS = Pattern.compile("^RESULT .*\\bslots=(\\d+)", Pattern.MULTILINE);
    private static final Pattern UNSENT = Pattern.compile("^RESULT .*\\bunsent=(\\d+)", Pattern.MULTILINE);

    /**
     * @param rategen the rategen binary ({@link RategenInstaller#ensure})
     * @param cpu     CPU to pin rategen to, or -1 for no pinning
     * @param workDir where the record and console files of the runs go (deleted after reading)
     */
    public RategenDriver(Path rategen, int cpu, Path workDir) {
        super("rategen", rategen, cpu, workDir);
    }

    @Override
    List<String> command(LoadSpec spec, int durationS, Path records, boolean pinned) {
        List<String> cmd = new ArrayList<>(List.of(
                binary().toString(),
                "-R",
                String.format(Locale.ROOT, "%.1f", spec.rate()),
                "-d",
                Integer.toString(durationS),
                "-c",
                Integer.toString(spec.connections()),
                "-m",
                spec.method(),
                "-t",
                Integer.toString(GRACE_S),
                "-o",
                records.toString()));
        if (spec.body() != null) {
            cmd.addAll(List.of("-b", spec.body().toString()));
        }
        cmd.addAll(List.of(spec.source() == LoadSpec.UrlSource.NEW_KEYS ? "-u" : "-f", spec.url()));
        return cmd;
    }

    @Override
    LoadResult read(LoadSpec spec, int durationS, Path records, String console) throws IOException {
        LoadResult one = LoadResult.empty(durationS);
        long answered = readRecords(records, one);
        one.recordNoAnswer(slots(console) - answered, unsent(console));
        return one;
    }

    @Override
    int graceS() {
        return GRACE_S;
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
     * Requests rategen never sent, from the {@code unsent=} field of its {@code RESULT} line (0 if absent).
     */
    static long unsent(String output) {
        Matcher m = UNSENT.matcher(output);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
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
        return version()
                + " (bench/rategen/rategen.c; constant rate in wrk2's model, latency from the intended send time)";
    }

    /** rategen's version line, e.g. {@code rategen 2}. */
    public String version() {
        return version("-V");
    }
}
