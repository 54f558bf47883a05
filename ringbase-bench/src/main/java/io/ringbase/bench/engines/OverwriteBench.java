package io.ringbase.bench.engines;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.EngineStats;
import io.ringbase.storage.Entry;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.compaction.CompactionStrategy;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The compaction strategies side by side on overwrites ({@code bench/engine-bench.sh overwrite}): for
 * each strategy, our LSM engine on a fresh directory is loaded with every key once, in random order, then
 * every key is overwritten {@code --overwrites} times (each pass in a new random order), single-threaded,
 * with incompressible values, as fast as one thread goes or at most {@code --rate} writes per second.
 * Reported per strategy:
 * <ul>
 *   <li><b>space amp</b>: bytes of the live SSTables / bytes of the live data, once compaction has caught
 *       up after a final flush ({@link LsmEngine#compactionIdle()}), and the mean and the worst of the
 *       samples taken during the run (every {@code --sample-every} writes, after the first pass). The live data's bytes are the live SSTables' after a
 *       major compaction at the end: one table holding each key once.</li>
 *   <li><b>write amp</b>: bytes written by flushes and compactions (the engine's counters, before the
 *       final major compaction) / user bytes (keys and values of every write). The WAL is left out: it is
 *       the same under both strategies.</li>
 *   <li><b>tables</b>: live SSTables once caught up, and the most and the mean of the samples: a point
 *       read may probe each (through its Bloom filter), the read amplification.</li>
 * </ul>
 */
@Command(
        name = "overwrite-bench",
        mixinStandardHelpOptions = true,
        description = "Space, write and read amplification of the compaction strategies under overwrites.")
public final class OverwriteBench implements Callable<Integer> {

    @Option(names = "--keys", defaultValue = "1000000", description = "Keys written (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(
            names = "--value-size",
            defaultValue = "100",
            description = "Value size in bytes (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(
            names = "--overwrites",
            defaultValue = "10",
            description = "Passes overwriting every key after the load (default: ${DEFAULT-VALUE}).")
    int overwrites;

    @Option(
            names = "--strategies",
            split = ",",
            defaultValue = "size-tiered,universal",
            description = "Compaction strategies to run, in this order (default: ${DEFAULT-VALUE}).")
    List<String> strategies;

    @Option(
            names = "--sample-every",
            defaultValue = "50000",
            description = "Writes between samples of the live tables (default: ${DEFAULT-VALUE}).")
    int sampleEvery;

    @Option(
            names = "--dir",
            defaultValue = "target/overwrite-bench",
            description = "Where the engines' directories go; emptied first (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(
            names = "--rate",
            defaultValue = "0",
            description = "Writes per second at most, 0 for as fast as one thread goes (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--out", description = "Also append the result table (markdown) to this file.")
    Path out;

    /** One strategy's figures. */
    record Row(
            CompactionStrategy strategy,
            long writes,
            double writeSeconds,
            double catchUpSeconds,
            long liveDataBytes,
            long caughtUpBytes,
            long worstBytes,
            double meanBytes,
            long writtenBytes,
            long userBytes,
            int caughtUpTables,
            int maxTables,
            double meanTables,
            long compactions,
            long stallMs) {}

    public static void main(String[] args) {
        System.exit(new CommandLine(new OverwriteBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String name : strategies) {
            rows.add(run(CompactionStrategy.parse(name)));
        }
        String table = table(rows);
        System.out.println(table);
        if (out != null) {
            Files.writeString(out, table + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        return 0;
    }

    private Row run(CompactionStrategy strategy) throws Exception {
        Path d = dir.resolve(strategy.flagName());
        EngineBench.deleteTree(d);
        byte[] randomBytes = new byte[1 << 20];
        new SplittableRandom(42).nextBytes(randomBytes);
        MemorySegment pool = MemorySegment.ofArray(randomBytes);
        LsmOptions options = LsmOptions.defaults(d)
                .withCompaction(CompactionOptions.defaults().withStrategy(strategy));
        long userBytes = (long) keys * (EngineBench.KEY_BYTES + valueSize) * (1 + overwrites);
        try (LsmEngine engine = LsmEngine.open(options)) {
            SplittableRandom rnd = new SplittableRandom(11);
            long version = HybridLogicalClock.fromPhysicalMs(System.currentTimeMillis());
            long worst = 0;
            long byteSamples = 0;
            int maxTables = 0;
            long tableSamples = 0;
            long samples = 0;
            long written = 0;
            long start = System.nanoTime();
            for (int pass = 0; pass <= overwrites; pass++) {
                EngineBench.progress("%s pass %d of %d", strategy.flagName(), pass + 1, overwrites + 1);
                int[] order = permutation(keys, new SplittableRandom(7 + pass));
                for (int i = 0; i < keys; i++) {
                    MemorySegment value = pool.asSlice(rnd.nextInt((int) pool.byteSize() - valueSize), valueSize);
                    engine.apply(EngineBench.key(order[i]), ++version, Entry.NO_EXPIRY, value);
                    if (rate > 0 && (written & 1023) == 0) {
                        long due = start + (long) (written * 1e9 / rate); // paced by the 1,024
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                    if (++written % sampleEvery == 0 && pass > 0) {
                        EngineStats s = engine.stats();
                        worst = Math.max(worst, s.sstableBytes());
                        byteSamples += s.sstableBytes();
                        int tables = engine.tableCount();
                        maxTables = Math.max(maxTables, tables);
                        tableSamples += tables;
                        samples++;
                    }
                }
            }
            double writeSeconds = (System.nanoTime() - start) / 1e9;
            long caughtUpStart = System.nanoTime();
            engine.flush();
            long deadline = System.nanoTime() + 1_800_000_000_000L;
            while (!engine.compactionIdle()) {
                worst = Math.max(worst, engine.stats().sstableBytes());
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(strategy + ": compaction did not catch up in 30 minutes");
                }
                Thread.sleep(100);
            }
            double catchUpSeconds = (System.nanoTime() - caughtUpStart) / 1e9;
            EngineStats caught = engine.stats();
            worst = Math.max(worst, caught.sstableBytes());
            int caughtTables = engine.tableCount();
            EngineBench.progress(
                    "%s caught up: %d tables, %d bytes; major compaction",
                    strategy.flagName(), caughtTables, caught.sstableBytes());
            engine.compactAll();
            long live = engine.stats().sstableBytes();
            return new Row(
                    strategy,
                    written,
                    writeSeconds,
                    catchUpSeconds,
                    live,
                    caught.sstableBytes(),
                    worst,
                    samples == 0 ? 0 : byteSamples / (double) samples,
                    caught.flushBytesOut() + caught.compactionBytesOut(),
                    userBytes,
                    caughtTables,
                    maxTables,
                    samples == 0 ? 0 : tableSamples / (double) samples,
                    caught.compactions(),
                    caught.writeStallNanos() / 1_000_000);
        }
    }

    static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| compaction | writes/s | catch-up s | live data MB | space amp caught up | space amp mean "
                + "| space amp worst | write amp | tables caught up | tables mean | tables max | compactions "
                + "| write stalls ms |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            sb.append(String.format(
                    Locale.ROOT,
                    "| %s | %,.0f | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %d | %.1f | %d | %d | %,d |%n",
                    r.strategy().flagName(),
                    r.writes() / r.writeSeconds(),
                    r.catchUpSeconds(),
                    r.liveDataBytes() / 1e6,
                    r.caughtUpBytes() / (double) r.liveDataBytes(),
                    r.meanBytes() / r.liveDataBytes(),
                    r.worstBytes() / (double) r.liveDataBytes(),
                    r.writtenBytes() / (double) r.userBytes(),
                    r.caughtUpTables(),
                    r.meanTables(),
                    r.maxTables(),
                    r.compactions(),
                    r.stallMs()));
        }
        return sb.toString();
    }

    private static int[] permutation(int n, SplittableRandom rnd) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}
