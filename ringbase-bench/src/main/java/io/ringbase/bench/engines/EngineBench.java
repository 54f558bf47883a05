package io.ringbase.bench.engines;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.node.Engines;
import io.ringbase.storage.EngineKind;
import io.ringbase.storage.Entry;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The engines head to head, in process: for each value size, both engines are opened on fresh
 * directories and each workload runs on one, then the other (the first engine alternates between value
 * sizes), single-threaded, as db_bench does by default:
 * <ul>
 *   <li><b>fillrandom</b>: every key once, in random order; then a flush and a wait until the disk is
 *       quiet (background compactions done). Write amplification = bytes this process wrote to disk
 *       during fill, flush and compactions ({@link DiskWrites}) / user bytes (keys + values). Space
 *       amplification = bytes of the directory's files after it / user bytes.</li>
 *   <li><b>open</b>: after fillrandom, the engine is closed and its directory opened again, timed.</li>
 *   <li><b>readrandom</b>: gets of random existing keys; <b>readmissing</b>: gets of keys that sort
 *       between existing ones and were never written; <b>seekrandom</b>: a scan from a random existing
 *       key reading {@code --scan-length} live entries, then closed; <b>fullscan</b>: one scan of every
 *       key (ops = entries).</li>
 * </ul>
 * With {@code --cold} each read workload starts from the disk: the engine is closed, the OS page cache
 * dropped and the engine opened again before it.
 * Keys are 16 bytes ({@code k} and 15 digits), values random (incompressible) bytes. Latencies are
 * recorded per operation (per entry for fullscan) in nanoseconds into an HdrHistogram.
 */
@Command(
        name = "engine-bench",
        mixinStandardHelpOptions = true,
        description = "In-process benchmark of the lsm and rocksdb storage engines, side by side.")
public final class EngineBench implements Callable<Integer> {

    static final int KEY_BYTES = 16;

    @Option(
            names = "--keys",
            defaultValue = "1000000",
            description = "Keys loaded by fillrandom (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(
            names = "--value-sizes",
            split = ",",
            defaultValue = "100,1024",
            description = "Value sizes in bytes, one round each (default: ${DEFAULT-VALUE}).")
    List<Integer> valueSizes;

    @Option(
            names = "--reads",
            defaultValue = "300000",
            description = "Operations of readrandom and readmissing (default: ${DEFAULT-VALUE}).")
    int reads;

    @Option(
            names = "--seeks",
            defaultValue = "100000",
            description = "Operations of seekrandom (default: ${DEFAULT-VALUE}).")
    int seeks;

    @Option(
            names = "--scan-length",
            defaultValue = "10",
            description = "Entries read per seek (default: ${DEFAULT-VALUE}).")
    int scanLength;

    @Option(
            names = "--dir",
            defaultValue = "target/engine-bench",
            description = "Where the engines' directories go; emptied first (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--out", description = "Also append the result table (markdown) to this file.")
    Path out;

    @Option(
            names = "--lsm-block-cache",
            defaultValue = "0",
            description =
                    "Our engine's block cache, bytes (default: ${DEFAULT-VALUE}, none, a node's default; RocksDB's "
                            + "is 32 MiB).")
    private long lsmBlockCacheBytes;

    @Option(
            names = "--cold",
            description = "Before each read workload, close the engine, drop the OS page cache (writes "
                    + "/proc/sys/vm/drop_caches: needs root) and open the engine again, so that its reads start "
                    + "from the disk (default: off, in cache).")
    boolean cold;

    @Option(
            names = "--engines",
            split = ",",
            defaultValue = "lsm,rocksdb",
            description = "Engines to run (default: ${DEFAULT-VALUE}).")
    List<String> engineNames;

    /** One measured workload on one engine. */
    record Row(
            int valueSize,
            String workload,
            EngineKind engine,
            long ops,
            double seconds,
            Histogram latencyNs,
            double writeAmp,
            double spaceAmp,
            String note) {
        double opsPerSecond() {
            return ops / seconds;
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new EngineBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<EngineKind> engines = engineNames.stream().map(EngineKind::parse).toList();
        List<Row> rows = new ArrayList<>();
        for (int round = 0; round < valueSizes.size(); round++) {
            int valueSize = valueSizes.get(round);
            List<EngineKind> order = new ArrayList<>(engines);
            if (round % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            rows.addAll(round(valueSize, order));
        }
        String table = table(rows);
        System.out.println(table);
        if (out != null) {
            Files.writeString(out, table + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        return 0;
    }

    private List<Row> round(int valueSize, List<EngineKind> order) throws Exception {
        deleteTree(dir);
        Map<EngineKind, ManagedEngine> open = new EnumMap<>(EngineKind.class);
        List<Row> rows = new ArrayList<>();
        byte[] randomBytes = new byte[1 << 20];
        new SplittableRandom(42).nextBytes(randomBytes);
        MemorySegment pool = MemorySegment.ofArray(randomBytes);
        int[] permutation = permutation(keys, new SplittableRandom(7));
        try {
            for (EngineKind kind : order) {
                open.put(kind, openEngine(kind, valueSize));
            }
            long userBytes = (long) keys * (KEY_BYTES + valueSize);
            for (EngineKind kind : order) {
                rows.add(fill(kind, open.get(kind), valueSize, pool, permutation, userBytes));
            }
            for (EngineKind kind : order) {
                rows.add(reopen(kind, open, valueSize));
            }
            for (EngineKind kind : order) {
                rows.add(reads(kind, readable(kind, open, valueSize), valueSize, "readrandom", false));
            }
            for (EngineKind kind : order) {
                rows.add(reads(kind, readable(kind, open, valueSize), valueSize, "readmissing", true));
            }
            for (EngineKind kind : order) {
                rows.add(seeks(kind, readable(kind, open, valueSize), valueSize));
            }
            for (EngineKind kind : order) {
                rows.add(fullScan(kind, readable(kind, open, valueSize), valueSize));
            }
        } finally {
            for (ManagedEngine e : open.values()) {
                e.close();
            }
        }
        return rows;
    }

    private Row fill(
            EngineKind kind, ManagedEngine engine, int valueSize, MemorySegment pool, int[] permutation, long userBytes)
            throws Exception {
        progress("%s fillrandom %d keys of %d B", kind.flagName(), keys, valueSize);
        DiskWrites.settle(1000, 60_000);
        long diskBefore = DiskWrites.now();
        Histogram h = histogram();
        SplittableRandom rnd = new SplittableRandom(11);
        long version = HybridLogicalClock.fromPhysicalMs(System.currentTimeMillis());
        long start = System.nanoTime();
        for (int i = 0; i < keys; i++) {
            byte[] key = key(permutation[i]);
            MemorySegment value = pool.asSlice(rnd.nextInt((int) pool.byteSize() - valueSize), valueSize);
            long t = System.nanoTime();
            engine.apply(key, ++version, Entry.NO_EXPIRY, value);
            h.recordValue(System.nanoTime() - t);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        engine.flush();
        long diskAfter = DiskWrites.settle(2000, 300_000);
        long dirBytes = directoryBytes(engineDir(kind, valueSize));
        String note = String.format(
                Locale.ROOT,
                "%.0f MB written, dir %.0f MB, %d tables",
                (diskAfter - diskBefore) / 1e6,
                dirBytes / 1e6,
                engine.tableCount());
        return new Row(
                valueSize,
                "fillrandom",
                kind,
                keys,
                seconds,
                h,
                (diskAfter - diskBefore) / (double) userBytes,
                dirBytes / (double) userBytes,
                note);
    }

    /**
     * The engine of {@code kind}, for a read workload: as it is, or with {@code --cold} closed, the page
     * cache dropped and opened again (RocksDB's block cache then starts empty too).
     *
     * @throws IOException if the cache cannot be dropped (not root), naming the file
     */
    private ManagedEngine readable(EngineKind kind, Map<EngineKind, ManagedEngine> open, int valueSize)
            throws IOException, InterruptedException {
        if (!cold) {
            return open.get(kind);
        }
        open.remove(kind).close();
        dropPageCache();
        ManagedEngine engine = openEngine(kind, valueSize);
        open.put(kind, engine);
        return engine;
    }

    /** Writes dirty pages out ({@code sync}), then drops the clean page cache (Linux, root). */
    private static void dropPageCache() throws IOException, InterruptedException {
        DiskWrites.sync();
        Path dropCaches = Path.of("/proc/sys/vm/drop_caches");
        try {
            Files.writeString(dropCaches, "1");
        } catch (IOException e) {
            throw new IOException("--cold needs root: cannot write " + dropCaches + " (" + e + ")", e);
        }
    }

    /** The directory of {@code kind}'s engine in the round of {@code valueSize}-byte values. */
    private Path engineDir(EngineKind kind, int valueSize) {
        return dir.resolve(kind.flagName() + "-" + valueSize);
    }

    /** Opens {@code kind}'s engine on its directory of the round of {@code valueSize}-byte values. */
    private ManagedEngine openEngine(EngineKind kind, int valueSize) throws IOException {
        return Engines.open(kind, options(engineDir(kind, valueSize)));
    }

    /** The settings both engines are opened with (RocksDB takes the shared ones and its own defaults). */
    private LsmOptions options(Path engineDir) {
        return LsmOptions.defaults(engineDir).withBlockCacheBytes(lsmBlockCacheBytes);
    }

    /**
     * Closes the engine and opens its directory again, timed: what a restarted node pays before it
     * serves (the tables' files are in the page cache, as after a restart that is not a reboot).
     */
    private Row reopen(EngineKind kind, Map<EngineKind, ManagedEngine> open, int valueSize) throws IOException {
        progress("%s open of %d keys of %d B", kind.flagName(), keys, valueSize);
        open.remove(kind).close();
        Histogram h = histogram();
        long start = System.nanoTime();
        ManagedEngine engine = openEngine(kind, valueSize);
        long nanos = System.nanoTime() - start;
        open.put(kind, engine);
        h.recordValue(nanos);
        return new Row(
                valueSize,
                "open",
                kind,
                1,
                nanos / 1e9,
                h,
                Double.NaN,
                Double.NaN,
                String.format(Locale.ROOT, "opened in %.0f ms, %d tables", nanos / 1e6, engine.tableCount()));
    }

    private Row reads(EngineKind kind, ManagedEngine engine, int valueSize, String name, boolean missing)
            throws IOException {
        progress("%s %s %d B", kind.flagName(), name, valueSize);
        Histogram h = histogram();
        SplittableRandom rnd = new SplittableRandom(13);
        long found = 0;
        long readBefore = DiskWrites.readNow();
        long start = System.nanoTime();
        for (int i = 0; i < reads; i++) {
            byte[] key = missing ? missingKey(rnd.nextInt(keys)) : key(rnd.nextInt(keys));
            long t = System.nanoTime();
            Entry e = engine.get(key);
            h.recordValue(System.nanoTime() - t);
            if (e != null) {
                found++;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long expected = missing ? 0 : reads;
        if (found != expected) {
            throw new IllegalStateException(
                    kind + " " + name + ": found " + found + " of " + reads + ", expected " + expected);
        }
        return new Row(valueSize, name, kind, reads, seconds, h, Double.NaN, Double.NaN, diskRead(readBefore, reads));
    }

    private Row seeks(EngineKind kind, ManagedEngine engine, int valueSize) throws IOException {
        progress("%s seekrandom %d B", kind.flagName(), valueSize);
        Histogram h = histogram();
        SplittableRandom rnd = new SplittableRandom(17);
        long entries = 0;
        long readBefore = DiskWrites.readNow();
        long start = System.nanoTime();
        for (int i = 0; i < seeks; i++) {
            byte[] from = key(rnd.nextInt(keys));
            long t = System.nanoTime();
            try (CloseableIterator<Entry> it = engine.scan(from, null, true)) {
                for (int n = 0; n < scanLength && it.hasNext(); n++) {
                    it.next();
                    entries++;
                }
            }
            h.recordValue(System.nanoTime() - t);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Row(
                valueSize,
                "seekrandom",
                kind,
                seeks,
                seconds,
                h,
                Double.NaN,
                Double.NaN,
                String.format(Locale.ROOT, "%.1f entries/seek", entries / (double) seeks) + ", "
                        + diskRead(readBefore, seeks));
    }

    private Row fullScan(EngineKind kind, ManagedEngine engine, int valueSize) throws IOException {
        progress("%s fullscan %d B", kind.flagName(), valueSize);
        Histogram h = histogram();
        long entries = 0;
        long bytes = 0;
        long start = System.nanoTime();
        try (CloseableIterator<Entry> it = engine.scan(new byte[0], null, true)) {
            long t = System.nanoTime();
            while (it.hasNext()) {
                Entry e = it.next();
                long now = System.nanoTime();
                h.recordValue(now - t);
                t = now;
                entries++;
                bytes += e.key().length + e.value().length;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (entries != keys) {
            throw new IllegalStateException(kind + " fullscan saw " + entries + " entries of " + keys);
        }
        return new Row(
                valueSize,
                "fullscan",
                kind,
                entries,
                seconds,
                h,
                Double.NaN,
                Double.NaN,
                String.format(Locale.ROOT, "%.0f MB/s", bytes / 1e6 / seconds));
    }

    /** "N KB read from disk per op" since {@code before} ({@link DiskWrites#readNow}), for a row's notes. */
    private static String diskRead(long before, long ops) throws IOException {
        return String.format(
                Locale.ROOT, "%.1f KB read from disk per op", (DiskWrites.readNow() - before) / 1e3 / Math.max(1, ops));
    }

    static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| value | workload | engine | ops | ops/s | p50 µs | p99 µs | write amp | space amp | notes |\n");
        sb.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            sb.append(String.format(
                    Locale.ROOT,
                    "| %d B | %s | %s | %d | %,.0f | %.1f | %.1f | %s | %s | %s |%n",
                    r.valueSize(),
                    r.workload(),
                    r.engine().flagName(),
                    r.ops(),
                    r.opsPerSecond(),
                    r.latencyNs().getValueAtPercentile(50) / 1000.0,
                    r.latencyNs().getValueAtPercentile(99) / 1000.0,
                    Double.isNaN(r.writeAmp()) ? "" : String.format(Locale.ROOT, "%.2f", r.writeAmp()),
                    Double.isNaN(r.spaceAmp()) ? "" : String.format(Locale.ROOT, "%.2f", r.spaceAmp()),
                    r.note()));
        }
        return sb.toString();
    }

    /** Key {@code i}: {@code k} and 15 decimal digits, 16 bytes. */
    static byte[] key(int i) {
        return String.format(Locale.ROOT, "k%015d", i).getBytes(StandardCharsets.US_ASCII);
    }

    /** A key that sorts right after key {@code i} and is never written. */
    static byte[] missingKey(int i) {
        return String.format(Locale.ROOT, "k%015dm", i).getBytes(StandardCharsets.US_ASCII);
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

    private static Histogram histogram() {
        return new Histogram(3_600_000_000_000L, 3);
    }

    private static long directoryBytes(Path d) throws IOException {
        try (Stream<Path> s = Files.walk(d)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> {
                        try {
                            return Files.size(p);
                        } catch (IOException e) {
                            return 0; // deleted meanwhile
                        }
                    })
                    .sum();
        }
    }

    /** Deletes {@code d} and everything under it; nothing if it does not exist. */
    static void deleteTree(Path d) throws IOException {
        if (!Files.exists(d)) {
            return;
        }
        try (Stream<Path> s = Files.walk(d)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** One progress line on stderr, after the wall-clock time. */
    static void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, "%tT " + format + "%n", prepend(System.currentTimeMillis(), args));
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
