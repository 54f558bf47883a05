package io.ringbase.faults;

import java.nio.file.Path;

/**
 * How long and how hard a suite runs.
 *
 * @param faultSeconds how long the nemesis alternates injecting and healing, per fault (s)
 * @param quietMs      healthy time between two faults (ms)
 * @param activeMs     how long each fault lasts (ms)
 * @param clients      concurrent clients
 * @param outputDir    where the report and failing histories go
 * @param seed         the random seed (victims, offsets, operations)
 */
public record SuiteSettings(int faultSeconds, long quietMs, long activeMs, int clients, Path outputDir, long seed) {

    /** Nodes in the cluster. */
    public static final int NODES = 3;

    public SuiteSettings {
        if (faultSeconds < 1 || quietMs < 1 || activeMs < 1 || clients < 1) {
            throw new IllegalArgumentException("fault seconds, quiet and active ms and clients must be positive, got "
                    + faultSeconds + " s, " + quietMs + " ms, " + activeMs + " ms, " + clients);
        }
    }

    /**
     * The short suite of every build: 7 s per fault, two fault windows (2.5 s of fault, 1 s healthy). It was
     * 8 s, which made a third window in most rows; 7 s pays for the rows added with the kill of a majority,
     * the client/node partition and the tombstone purge within the build's time budget.
     */
    public static SuiteSettings shortRun() {
        return new SuiteSettings(
                Integer.getInteger("ringbase.faults.seconds", 7),
                1_000,
                2_500,
                5,
                Path.of("target", "faults"),
                Long.getLong("ringbase.faults.seed", System.currentTimeMillis()));
    }

    /** The full suite ({@code -Pfaults}): 3 minutes per fault unless {@code ringbase.faults.seconds} says otherwise. */
    public static SuiteSettings fullRun() {
        return new SuiteSettings(
                Integer.getInteger("ringbase.faults.seconds", 180),
                3_000,
                6_000,
                6,
                Path.of("target", "faults"),
                Long.getLong("ringbase.faults.seed", System.currentTimeMillis()));
    }

    /** The same settings, writing to {@code dir} (a suite of its own beside the short one). */
    public SuiteSettings withOutputDir(Path dir) {
        return new SuiteSettings(faultSeconds, quietMs, activeMs, clients, dir, seed);
    }

    /**
     * How long one register key is used before it is retired (ms): one fault window and one more fault,
     * {@code 2 * activeMs + quietMs}. A key used for that long holds a whole fault (its injection and
     * its heal) wherever its life starts among the windows, so every key's history crosses a fault
     * boundary both ways; keys retired after a few hundred milliseconds (as before) mostly saw one state
     * of the cluster. The cost is longer histories per key for the linearizability search (the report's
     * cell gives its steps; see docs/faults.md for the measurements).
     */
    public long registerKeyLifetimeMs() {
        return 2 * activeMs + quietMs;
    }
}
