package io.ringbase.storage.lsm.compaction;

/**
 * Settings of size-tiered compaction, after Cassandra's SizeTieredCompactionStrategy.
 *
 * @param minThreshold    a tier is compacted once it holds this many tables (default 4)
 * @param maxThreshold    at most this many tables are merged at once (default 32)
 * @param smallTableBytes tables below this size all share the smallest tier (default 32 MiB)
 * @param bucketLow       a table joins a tier if its size is at least this fraction of the tier's
 *                        average (default 0.5)
 * @param bucketHigh      ... and at most this multiple of it (default 1.5)
 * @param slowdownTables  write backpressure: with this many SSTables waiting for compaction
 *                        ({@link SizeTieredPicker#backlog}: the smallest tier's, where flushes land, and
 *                        those of every tier of at least {@code minThreshold}; not settled tiers, which no
 *                        merge reduces), each write is delayed {@value #SLOWDOWN_DELAY_MS} ms (default 20,
 *                        RocksDB's {@code level0_slowdown_writes_trigger}, which counts level-0 files)
 * @param stopTables      ... and with this many, writes wait for compaction to merge some, up to the
 *                        flush stall timeout, then fail with 503 (default 36, RocksDB's
 *                        {@code level0_stop_writes_trigger}); at least {@code slowdownTables}
 */
public record CompactionOptions(
        int minThreshold,
        int maxThreshold,
        long smallTableBytes,
        double bucketLow,
        double bucketHigh,
        int slowdownTables,
        int stopTables) {

    /** Delay of each write while the slowdown trigger is reached, ms. */
    public static final long SLOWDOWN_DELAY_MS = 1;

    public static final int DEFAULT_SLOWDOWN_TABLES = 20;
    public static final int DEFAULT_STOP_TABLES = 36;

    public CompactionOptions {
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
    }

    /** The tier settings with the default write triggers (20 and 36 tables). */
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
                minThreshold, maxThreshold, smallTableBytes, bucketLow, bucketHigh, slowdown, stop);
    }

    public static CompactionOptions defaults() {
        return new CompactionOptions(4, 32, 32L << 20, 0.5, 1.5);
    }
}
