package io.ringbase.cli;

import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.compaction.CompactionStrategy;
import picocli.CommandLine.Option;

/**
 * The compaction flags of {@code serve}: the strategy, universal's space-amplification bound, the
 * tombstone trigger, the write rate and the write triggers, parsed into {@link CompactionOptions} (docs/design.md,
 * "Compaction").
 */
final class CompactionFlags {

    @Option(
            names = "--compaction",
            defaultValue = "universal",
            paramLabel = "size-tiered|universal",
            description = "Compaction strategy: 'universal' merges every table once the newer ones hold "
                    + "--compaction-max-space-amp-percent of the oldest (space bounded), 'size-tiered' merges tables "
                    + "of similar size (Cassandra's STCS). Not stored: it may change between restarts "
                    + "(default: ${DEFAULT-VALUE}).")
    String strategy;

    @Option(
            names = "--compaction-max-space-amp-percent",
            defaultValue = "25",
            paramLabel = "PERCENT",
            description = "Universal compaction merges every SSTable once those newer than the oldest hold this "
                    + "many percent of its bytes, as RocksDB's max_size_amplification_percent; 1 to 10000 "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxSpaceAmpPercent;

    @Option(
            names = "--compaction-tombstone-threshold",
            defaultValue = "0.2",
            paramLabel = "RATIO",
            description = "An SSTable with at least this fraction of tombstones and expired values, all past "
                    + "--tombstone-grace, is compacted for them once it is --compaction-tombstone-interval old, "
                    + "as Cassandra's tombstone_threshold; above 1 turns this off (default: ${DEFAULT-VALUE}).")
    double tombstoneThreshold;

    @Option(
            names = "--compaction-tombstone-interval",
            defaultValue = "1d",
            paramLabel = "DURATION",
            description = "Age an SSTable's file must reach before it is compacted for its tombstones, as "
                    + "Cassandra's tombstone_compaction_interval (default: ${DEFAULT-VALUE}).")
    TimeSpan tombstoneInterval;

    @Option(
            names = "--compaction-rate",
            defaultValue = "0",
            paramLabel = "SIZE",
            description = "Most bytes per second compaction writes while it keeps up (e.g. 64m; for hosts whose disk "
                    + "compaction bursts hold up), auto-tuned between a "
                    + "twentieth of this and this to what the merges need, as RocksDB's auto-tuned rate "
                    + "limiter; no limit while compaction is behind; 0 for no limit (default: ${DEFAULT-VALUE}).")
    String rate;

    @Option(
            names = "--compaction-slowdown-tables",
            defaultValue = "20",
            paramLabel = "N",
            description = "With this many SSTables waiting for compaction (where flushes land and what is due for "
                    + "a merge), each write is delayed 1 ms, as RocksDB's level0_slowdown_writes_trigger "
                    + "(default: ${DEFAULT-VALUE}).")
    int slowdownTables;

    @Option(
            names = "--compaction-stop-tables",
            defaultValue = "36",
            paramLabel = "N",
            description = "With this many SSTables waiting for compaction, writes wait for it, then get 503, as "
                    + "RocksDB's level0_stop_writes_trigger; at least --compaction-slowdown-tables "
                    + "(default: ${DEFAULT-VALUE}).")
    int stopTables;

    /**
     * The flags as engine settings.
     *
     * @throws IllegalArgumentException naming the flag, for a value out of range
     */
    CompactionOptions options() {
        if (slowdownTables < 1 || stopTables < slowdownTables) {
            throw new IllegalArgumentException("need 1 <= --compaction-slowdown-tables <= --compaction-stop-tables, "
                    + "got " + slowdownTables + " and " + stopTables);
        }
        if (maxSpaceAmpPercent < 1 || maxSpaceAmpPercent > 10_000) {
            throw new IllegalArgumentException(
                    "--compaction-max-space-amp-percent must be 1 to 10000, got " + maxSpaceAmpPercent);
        }
        if (!(tombstoneThreshold > 0)) {
            throw new IllegalArgumentException(
                    "--compaction-tombstone-threshold must be above 0, got " + tombstoneThreshold);
        }
        long rateBytes;
        try {
            rateBytes = ByteSize.parseOrZero(rate);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--compaction-rate must be a size such as 64m, or 0 for no limit: " + e.getMessage(), e);
        }
        CompactionStrategy parsed;
        try {
            parsed = CompactionStrategy.parse(strategy);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--compaction: " + e.getMessage(), e);
        }
        return CompactionOptions.defaults()
                .withStrategy(parsed)
                .withMaxSizeAmplificationPercent(maxSpaceAmpPercent)
                .withTombstoneTrigger(tombstoneThreshold, tombstoneInterval.millis())
                .withWriteTriggers(slowdownTables, stopTables)
                .withRate(rateBytes);
    }
}
