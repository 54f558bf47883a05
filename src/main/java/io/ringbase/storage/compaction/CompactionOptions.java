package io.ringbase.storage.compaction;

/**
 * Settings of size-tiered compaction, after Cassandra's SizeTieredCompactionStrategy.
 *
 * @param minThreshold    a tier is compacted once it holds this many tables (default 4)
 * @param maxThreshold    at most this many tables are merged at once (default 32)
 * @param smallTableBytes tables below this size all share the smallest tier (default 32 MiB)
 * @param bucketLow       a table joins a tier if its size is at least this fraction of the tier's
 *                        average (default 0.5)
 * @param bucketHigh      ... and at most this multiple of it (default 1.5)
 */
public record CompactionOptions(int minThreshold, int maxThreshold, long smallTableBytes, double bucketLow,
                                double bucketHigh) {

    public CompactionOptions {
        if (minThreshold < 2 || maxThreshold < minThreshold) {
            throw new IllegalArgumentException("need 2 <= minThreshold <= maxThreshold, got " + minThreshold + ", " + maxThreshold);
        }
        if (smallTableBytes < 0 || !(bucketLow > 0 && bucketLow <= 1) || !(bucketHigh >= 1)) {
            throw new IllegalArgumentException("bad tier bounds");
        }
    }

    public static CompactionOptions defaults() {
        return new CompactionOptions(4, 32, 32L << 20, 0.5, 1.5);
    }
}
