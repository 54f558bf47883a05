package io.ringbase.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Heap bytes a node JVM allocates, from JFR's {@code jdk.ThreadAllocationStatistics}: every second
 * ({@value #PERIOD}) the JVM records, for each live Java thread, the bytes it has allocated since it started.
 * A recording of that one event is started and stopped in the node with {@code jcmd JFR.start} /
 * {@code JFR.stop} and read back with the JDK's own reader ({@link RecordingFile}).
 *
 * <p>The bytes of a window are summed per thread, last sample minus first (so a thread that starts or ends
 * inside the window counts from or to its own first or last sample), over the samples inside the window.
 * The measurement's own threads are left out: JFR's ({@code JFR Periodic Tasks} allocates about 0.3 MB a
 * second), and {@code Attach Listener}, which runs the jcmd commands (async-profiler's among them).
 */
public final class AllocationSampler {

    /** The sampling period of the recording, in JFR's syntax. */
    static final String PERIOD = "1 s";
    /** The recording's name in the node. */
    static final String RECORDING = "ringbase-bench-alloc";
    /** JFR settings that enable only the per-thread allocation counters. */
    static final String SETTINGS = """
            <?xml version="1.0" encoding="UTF-8"?>
            <configuration version="2.0" label="ringbase bench: allocated bytes per thread">
              <event name="jdk.ThreadAllocationStatistics">
                <setting name="enabled">true</setting>
                <setting name="period">%s</setting>
              </event>
            </configuration>
            """.formatted(PERIOD);

    private static final String EVENT = "jdk.ThreadAllocationStatistics";

    private final Path settings;

    /** @param workDir where the settings file goes */
    public AllocationSampler(Path workDir) throws IOException {
        this.settings = workDir.resolve("thread-allocation.jfc");
        Files.writeString(settings, SETTINGS);
    }

    /**
     * One sample of one thread.
     *
     * @param threadId       the thread's Java id (unique for the JVM's life)
     * @param threadName     the thread's name
     * @param time           when the sample was taken
     * @param allocatedBytes heap bytes the thread has allocated since it started
     */
    public record Sample(long threadId, String threadName, Instant time, long allocatedBytes) {}

    /**
     * What a window's samples add up to.
     *
     * @param bytes   heap bytes allocated between the first and the last sample of the window
     * @param spanS   seconds from the first to the last sample of the window
     * @param threads threads counted
     */
    public record Allocation(long bytes, double spanS, int threads) {

        /** Heap bytes allocated per second over the span. */
        public double bytesPerSecond() {
            return bytes / spanS;
        }
    }

    /**
     * Starts the recording in the JVM {@code node}, written to {@code file} when stopped.
     *
     * @throws IOException when JFR does not start (the message holds jcmd's output)
     */
    public void start(Jcmd node, Path file) throws IOException, InterruptedException {
        String out = node.run("JFR.start", List.of("name=" + RECORDING, "settings=" + settings, "filename=" + file));
        if (!out.contains("Started recording")) {
            throw new IOException("JFR did not start in pid " + node.pid() + ": " + out.strip());
        }
    }

    /**
     * Stops the recording in {@code node} and returns its samples.
     *
     * @throws IOException when JFR does not stop or the file cannot be read
     */
    public List<Sample> stop(Jcmd node, Path file) throws IOException, InterruptedException {
        String out = node.run("JFR.stop", List.of("name=" + RECORDING));
        if (!out.contains("Stopped recording")) {
            throw new IOException("JFR did not stop in pid " + node.pid() + ": " + out.strip());
        }
        return read(file);
    }

    /** The {@code jdk.ThreadAllocationStatistics} samples of a recording file, in file order. */
    public static List<Sample> read(Path file) throws IOException {
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(EVENT))
                .map(AllocationSampler::sample)
                .toList();
    }

    private static Sample sample(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        long id = t == null ? -1 : t.getJavaThreadId();
        String name = t == null ? "" : t.getJavaName();
        return new Sample(id, name == null ? "" : name, e.getStartTime(), e.getLong("allocated"));
    }

    /** True for the threads of the measurement itself, which are not counted. */
    static boolean measurementThread(String name) {
        return name.startsWith("JFR ") || name.equals("Attach Listener");
    }

    /**
     * The bytes allocated within {@code [from, to]}: per thread, its last sample in the window minus its
     * first, summed; empty when the window holds fewer than two sampling times.
     */
    public static Optional<Allocation> allocated(List<Sample> samples, Instant from, Instant to) {
        Map<Long, Sample[]> firstLast = new HashMap<>();
        Instant earliest = null;
        Instant latest = null;
        for (Sample s : samples) {
            if (s.time().isBefore(from) || s.time().isAfter(to) || measurementThread(s.threadName())) {
                continue;
            }
            earliest = earliest == null || s.time().isBefore(earliest) ? s.time() : earliest;
            latest = latest == null || s.time().isAfter(latest) ? s.time() : latest;
            Sample[] fl = firstLast.computeIfAbsent(s.threadId(), k -> new Sample[] {s, s});
            if (s.time().isBefore(fl[0].time())) {
                fl[0] = s;
            }
            if (s.time().isAfter(fl[1].time())) {
                fl[1] = s;
            }
        }
        if (earliest == null || !latest.isAfter(earliest)) {
            return Optional.empty();
        }
        long bytes = 0;
        for (Sample[] fl : firstLast.values()) {
            bytes += fl[1].allocatedBytes() - fl[0].allocatedBytes();
        }
        return Optional.of(
                new Allocation(bytes, Duration.between(earliest, latest).toNanos() / 1e9, firstLast.size()));
    }
}
