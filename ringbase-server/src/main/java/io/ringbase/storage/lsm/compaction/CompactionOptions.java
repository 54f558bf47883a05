package io.ringbase.storage.lsm.compaction;

/**
 * Settings of compaction: the strategy, its tiers or runs, the tombstone trigger and the write triggers.
 *
 * @param strategy        which picker decides merges (default {@link #DEFAULT_STRATEGY}); not persisted,
 *                        see {@link CompactionStrategy}
 * @param minThreshold    size-tiered: a tier is compacted once it holds this many tables; universal: the
 *                        minimum merge width of a size-ratio run (default 4)
 * @param maxThreshold    at most this many tables are merged at once, but for a universal full compaction
 *                        (default 32)
 * @param smallTableBytes size-tiered: tables below this size all share the smallest tier (default 32 MiB)
 * @param bucketLow       size-tiered: a table joins a tier if its size is at least this fraction of the
 *                        tier's average (default 0.5)
 * @param bucketHigh      ... and at most this multiple of it (default 1.5)
 * @param slowdownTables  write backpressure: with this many SSTables waiting for compaction
 *                        ({@link CompactionPicker#backlog}), each write is delayed {@value #SLOWDOWN_DELAY_MS}
 *                        ms (default 20, RocksDB's {@code level0_slowdown_writes_trigger}, which counts
 *                        level-0 files)
 * @param stopTables      ... and with this many, writes wait for compaction to merge some, up to the
 *                        flush stall timeout, then fail with 503 (default 36, RocksDB's
 *                        {@code level0_stop_writes_trigger}); at least {@code slowdownTables}
 * @param maxSizeAmplificationPercent universal: every table is merged once the tables newer than the oldest
 *                        hold this many percent of its bytes (default 25; RocksDB's
 *                        {@code max_size_amplification_percent}), 1 to 10,000
 * @param sizeRatioPercent universal: a size-ratio run takes the next table while it is at most
 *                        {@code 100 + sizeRatioPercent} percent of the run so far (default 1; RocksDB's
 *                        {@code size_ratio}), 0 to 10,000
 * @param tombstoneThreshold both: a table with at least this fraction of droppable tombstones and expired
 *                        values is compacted for them
 *                        ({@link TombstoneTrigger}; default 0.2, Cassandra's {@code tombstone_threshold});
 *                        in (0, 1], or more than 1 for never
 * @param tombstoneIntervalMs ... once its file is at least this old, ms (default 1 day, Cassandra's
 *                        {@code tombstone_compaction_interval}); at least 0
 * @param rateBytesPerSecond the most bytes/s merges write while compaction keeps up, auto-tuned below it
 *                        ({@link CompactionRateLimiter}); 0 for no limit, the default: on one CPU
 *                        merges are CPU-bound and the limit changed no tail (docs/design.md)
 */
public record CompactionOptions(
        CompactionStrategy strategy,
        int minThreshold,
        int maxThreshold,
        long smallTableBytes,
        double bucketLow,
        double bucketHigh,
        int slowdownTables,
        int stopTables,
        int maxSizeAmplificationPercent,
        int sizeRatioPercent,
        double tombstoneThreshold,
        long tombstoneIntervalMs,
        long rateBytesPerSecond) {

    /** Delay of each write while the slowdown trigger is reached, ms. */
    public static final long SLOWDOWN_DELAY_MS = 1;

    public static final int DEFAULT_SLOWDOWN_TABLES = 20;
    public static final int DEFAULT_STOP_TABLES = 36;
    /** The strategy by default: it bounds space amplification (measured in docs/design.md). */
    public static final CompactionStrategy DEFAULT_STRATEGY = CompactionStrategy.UNIVERSAL;

    public static final int DEFAULT_MAX_SIZE_AMPLIFICATION_PERCENT = 25;
    public static final int DEFAULT_SIZE_RATIO_PERCENT = 1;
    public static final double DEFAULT_TOMBSTONE_THRESHOLD = 0.2;
    public static final long DEFAULT_TOMBSTONE_INTERVAL_MS = 24L * 60 * 60 * 1000;
    public static final long DEFAULT_RATE_BYTES_PER_SECOND = 0;

    public CompactionOptions {
        if (strategy == null) {
            throw new IllegalArgumentException("strategy must be given");
        }
        if (minThreshold < 2 || maxThreshold < minThreshold) {
            throw new IllegalArgumentException(
                    "need 2 <= minThreshold <= maxThreshold, got " + minThreshold + ", " + maxThreshold);
        }
        if (smallTableBytes < 0 || !(bucketLow > 0 && bucketLow <= 1) || !(bucketHigh >= 1)) {
            throw new IllegalArgumentException("bad tier bounds");
        }
        if (slowdownTables < 1 || stopTables < slowdownTables) {
            throw new IllegalArgumentException(
                    "need 1 <= slowdownTables <= stopTables, got " + slowdownTables + ", " + stopTables);
        }
        if (maxSizeAmplificationPercent < 1 || maxSizeAmplificationPercent > 10_000) {
            throw new IllegalArgumentException(
                    "maxSizeAmplificationPercent must be 1 to 10000, got " + maxSizeAmplificationPercent);
        }
        if (sizeRatioPercent < 0 || sizeRatioPercent > 10_000) {
            throw new IllegalArgumentException("sizeRatioPercent must be 0 to 10000, got " + sizeRatioPercent);
        }
        if (!(tombstoneThreshold > 0) || tombstoneIntervalMs < 0) {
            throw new IllegalArgumentException("need tombstoneThreshold > 0 and tombstoneIntervalMs >= 0, got "
                    + tombstoneThreshold + ", " + tombstoneIntervalMs);
        }
        if (rateBytesPerSecond < 0) {
            throw new IllegalArgumentException(
                    "rateBytesPerSecond must be >= 0 (0: unlimited), got " + rateBytesPerSecond);
        }
    }

    /**
     * Size-tiered settings with the given write triggers and the default universal settings and
     * tombstone trigger.
     */
    public CompactionOptions(
            int minThreshold,
            int maxThreshold,
            long smallTableBytes,
            double bucketLow,
            double bucketHigh,
            int slowdownTables,
            int stopTables) {
        this(
                CompactionStrategy.SIZE_TIERED,
                minThreshold,
                maxThreshold,
                smallTableBytes,
                bucketLow,
                bucketHigh,
                slowdownTables,
                stopTables,
                DEFAULT_MAX_SIZE_AMPLIFICATION_PERCENT,
                DEFAULT_SIZE_RATIO_PERCENT,
                DEFAULT_TOMBSTONE_THRESHOLD,
                DEFAULT_TOMBSTONE_INTERVAL_MS,
                DEFAULT_RATE_BYTES_PER_SECOND);
    }

    /** Size-tiered settings with the default write triggers (20 and 36 tables). */
    public CompactionOptions(
            int minThreshold, int maxThreshold, long smallTableBytes, double bucketLow, double bucketHigh) {
        this(
                minThreshold,
                maxThreshold,
                smallTableBytes,
                bucketLow,
                bucketHigh,
                DEFAULT_SLOWDOWN_TABLES,
                DEFAULT_STOP_TABLES);
    }

    /** These settings with writes slowed at {@code slowdown} waiting tables and stopped at {@code stop}. */
    public CompactionOptions withWriteTriggers(int slowdown, int stop) {
        return new CompactionOptions(
                strategy,
                minThreshold,
                maxThreshold,
                smallTableBytes,
                bucketLow,
                bucketHigh,
                slowdown,
                stop,
                maxSizeAmplificationPercent,
                sizeRatioPercent,
                tombstoneThreshold,
                tombstoneIntervalMs,
                rateBytesPerSecond);
    }

    /** These settings under {@code s}. */
    public CompactionOptions withStrategy(CompactionStrategy s) {
        return new CompactionOptions(
                s,
                minThreshold,
                maxThreshold,
                smallTableBytes,
                bucketLow,
                bucketHigh,
                slowdownTables,
                stopTables,
                maxSizeAmplificationPercent,
                sizeRatioPercent,
                tombstoneThreshold,
                tombstoneIntervalMs,
                rateBytesPerSecond);
    }

    /** These settings with universal's size-amplification bound at {@code percent}. */
    public CompactionOptions withMaxSizeAmplificationPercent(int percent) {
        return new CompactionOptions(
                strategy,
                minThreshold,
                maxThreshold,
                smallTableBytes,
                bucketLow,
                bucketHigh,
                slowdownTables,
                stopTables,
                percent,
                sizeRatioPercent,
                tombstoneThreshold,
                tombstoneIntervalMs,
                rateBytesPerSecond);
    }

    /** These settings with the tombstone trigger at {@code threshold} for tables {@code intervalMs} old. */
    public CompactionOptions withTombstoneTrigger(double threshold, long intervalMs) {
        return new CompactionOptions(
                strategy,
                minThreshold,
                maxThreshold,
                smallTableBytes,
                bucketLow,
                bucketHigh,
                slowdownTables,
                stopTables,
                maxSizeAmplificationPercent,
                sizeRatioPercent,
                threshold,
                intervalMs,
                rateBytesPerSecond);
    }

    /** These settings with merges' writes paced at most at {@code bytesPerSecond} (0: no limit). */
    public CompactionOptions withRate(long bytesPerSecond) {
        return new CompactionOptions(
                strategy,
                minThreshold,
                maxThreshold,
                smallTableBytes,
                bucketLow,
                bucketHigh,
                slowdownTables,
                stopTables,
                maxSizeAmplificationPercent,
                sizeRatioPercent,
                tombstoneThreshold,
                tombstoneIntervalMs,
                bytesPerSecond);
    }

    /** One line for the log: the strategy, its main bound and the tombstone trigger. */
    public String summary() {
        String bound = strategy == CompactionStrategy.UNIVERSAL
                ? "every table merged at " + maxSizeAmplificationPercent + " % space amplification"
                : "tiers of " + minThreshold + " tables merged";
        return strategy.flagName() + " (" + bound + "); tables of " + tombstoneThreshold
                + "+ tombstones compacted for them once " + tombstoneIntervalMs + " ms old; "
                + (rateBytesPerSecond == 0
                        ? "merges' writes not rate-limited"
                        : "merges write at most " + rateBytesPerSecond
                                + " bytes/s, auto-tuned, while compaction keeps up");
    }

    /** The picker of these settings' strategy. */
    public CompactionPicker picker() {
        return strategy.picker(this);
    }

    /** The defaults listed above: {@link #DEFAULT_STRATEGY}, its thresholds and the tombstone trigger. */
    public static CompactionOptions defaults() {
        return new CompactionOptions(4, 32, 32L << 20, 0.5, 1.5).withStrategy(DEFAULT_STRATEGY);
    }
}
