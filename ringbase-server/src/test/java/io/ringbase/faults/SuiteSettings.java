package io.ringbase.faults;

import java.nio.file.Path;

/**
 * How long and how hard a suite runs.
 *
 * @param faultSeconds      how long the nemesis alternates injecting and healing, per fault (s)
 * @param quietMs           healthy time between two faults (ms)
 * @param activeMs          how long each fault lasts (ms)
 * @param clients           concurrent clients
 * @param opsPerRegisterKey operations per register key before it is retired
 * @param outputDir         where the report and failing histories go
 * @param seed              the random seed (victims, offsets, operations)
 */
public record SuiteSettings(
        int faultSeconds, long quietMs, long activeMs, int clients, int opsPerRegisterKey, Path outputDir, long seed) {

    /** Nodes in the cluster. */
    public static final int NODES = 3;

    /** The short suite of every build: 8 s per fault. */
    public static SuiteSettings shortRun() {
        return new SuiteSettings(
                Integer.getInteger("ringbase.faults.seconds", 8),
                1_000,
                2_500,
                5,
                40,
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
                60,
                Path.of("target", "faults"),
                Long.getLong("ringbase.faults.seed", System.currentTimeMillis()));
    }
}
