package io.ringbase.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Peak resident memory of a process, from {@code RssAnon} (heap, native and thread memory: what the process
 * itself owns) and {@code RssFile} (mapped files in memory: the JDK's and the jar's, and mapped SSTables) in
 * {@code /proc/<pid>/status}, sampled every {@value #PERIOD_MS} ms on a thread of its own for the length
 * given to {@link #start}. The two peaks are kept apart and may come from different samples.
 */
public final class RssSampler {

    /** Time between samples, in milliseconds. */
    public static final long PERIOD_MS = 500;

    private static final Pattern ANON = Pattern.compile("(?m)^RssAnon:\\s*(\\d+)\\s*kB");
    private static final Pattern FILE = Pattern.compile("(?m)^RssFile:\\s*(\\d+)\\s*kB");

    private final Path status;
    private long peakAnonKb = -1;
    private long peakFileKb = -1;
    private int samples;
    private Thread thread;

    /** @param status the status file, {@code /proc/<pid>/status} */
    public RssSampler(Path status) {
        this.status = status;
    }

    /** A sampler of process {@code pid}. */
    public static RssSampler of(long pid) {
        return new RssSampler(Path.of("/proc", Long.toString(pid), "status"));
    }

    /**
     * Resident memory in kB (1,024 bytes).
     *
     * @param anonKb {@code RssAnon}
     * @param fileKb {@code RssFile}
     */
    public record Rss(long anonKb, long fileKb) {}

    /**
     * The {@code RssAnon} and {@code RssFile} lines of a {@code /proc/<pid>/status} text.
     *
     * @throws IOException when either is missing (a kernel before 4.5, or not a status file)
     */
    public static Rss parse(String statusText) throws IOException {
        Matcher a = ANON.matcher(statusText);
        Matcher f = FILE.matcher(statusText);
        if (!a.find() || !f.find()) {
            throw new IOException("no RssAnon/RssFile lines in the process status (Linux 4.5 or newer has them)");
        }
        return new Rss(Long.parseLong(a.group(1)), Long.parseLong(f.group(1)));
    }

    /**
     * Reads the status file once and keeps the peaks.
     *
     * @throws IOException when the file cannot be read (the process ended) or has no RSS lines
     */
    public synchronized void sample() throws IOException {
        Rss r = parse(Files.readString(status));
        peakAnonKb = Math.max(peakAnonKb, r.anonKb());
        peakFileKb = Math.max(peakFileKb, r.fileKb());
        samples++;
    }

    /**
     * Samples at once, then every {@value #PERIOD_MS} ms, and once more at the end of {@code durationMs}, on a
     * daemon thread.
     */
    public void start(long durationMs) {
        long end = System.nanoTime() + durationMs * 1_000_000;
        thread = Thread.ofPlatform().daemon().name("rss-sampler " + status).start(() -> {
            try {
                while (true) {
                    sample();
                    long left = (end - System.nanoTime()) / 1_000_000;
                    if (left <= 0) {
                        return;
                    }
                    Thread.sleep(Math.min(PERIOD_MS, left));
                }
            } catch (IOException | InterruptedException e) {
                // the process ended, or stop(): the peaks so far stand
            }
        });
    }

    /**
     * Waits for the sampling to end (stops it if it has not) and returns the peaks.
     *
     * @throws IOException when not one sample could be read
     */
    public Rss stop() throws IOException, InterruptedException {
        if (thread != null) {
            thread.join(PERIOD_MS);
            thread.interrupt();
            thread.join();
        }
        return peak();
    }

    /**
     * The peaks of the samples so far.
     *
     * @throws IOException when there was no sample
     */
    public synchronized Rss peak() throws IOException {
        if (samples == 0) {
            throw new IOException("no RSS sample of " + status);
        }
        return new Rss(peakAnonKb, peakFileKb);
    }
}
