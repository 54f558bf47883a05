package io.ringbase.bench.engines;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.memtable.Memtable;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Inserts into a memtable and point lookups in it ({@code bench/memtable-bench.sh}). Each round fills a
 * new memtable with keys {@code --key-prefix} and {@code --key-digits} digits (16 bytes by default;
 * random numbers, or increasing with {@code --sequential}), or with {@code --random-keys} random bytes
 * of the same length, and values of
 * {@code --value-size} bytes until it has no room, and prints ns per insert. The last one stays: each
 * round then looks up {@code --lookups} keys it holds and as many it does not (the common case of a read
 * under random keys, where most keys are in SSTables), and prints ns per lookup. The first rounds are
 * JIT warm-up.
 *
 * <p>Alone in a process the whole memtable stays in the CPU caches, which it does not in a node, where
 * each request's trip through the kernel and the HTTP codec evicts much of it. {@code --evict-bytes N}
 * models that: after each operation the bench reads N more bytes of a 64 MiB buffer (one long per
 * 64-byte line), so a skip-list search pays for its cache misses as it does in a node. The figures then
 * include those reads: compare builds with the same N, not against runs without it.
 *
 * <p>Each figure is given twice: wall time, and the CPU time of the bench's thread (which leaves out the
 * time the thread waited for a CPU, so it is the steadier of the two on a machine other processes share).
 */
@Command(
        name = "memtable-bench",
        mixinStandardHelpOptions = true,
        description = "Point lookups in a full memtable: keys it holds and keys it does not.")
public final class MemtableBench implements Callable<Integer> {

    @Option(
            names = "--memtable-size",
            defaultValue = "16777216",
            description = "Memtable limit, bytes (default: ${DEFAULT-VALUE}).")
    long memtableBytes;

    @Option(
            names = "--value-size",
            defaultValue = "100",
            description = "Value size, bytes (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(
            names = "--lookups",
            defaultValue = "1000000",
            description = "Lookups per round and kind (default: ${DEFAULT-VALUE}).")
    int lookups;

    @Option(names = "--rounds", defaultValue = "5", description = "Rounds (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--sequential",
            description = "Insert keys in increasing order (a PUT of new keys: sequence "
                    + "numbers, timestamps) instead of random order.")
    boolean sequential;

    @Option(
            names = "--key-digits",
            defaultValue = "15",
            description = "Digits of the number in a key \"k<digits>\" "
                    + "(default: ${DEFAULT-VALUE}: 16-byte keys whose first 8 bytes are shared by many keys; 12 gives "
                    + "bench/rategen's keys, whose first 8 bytes tell most keys apart).")
    int keyDigits;

    @Option(
            names = "--key-prefix",
            defaultValue = "k",
            description = "Text before the digits of a key (default: ${DEFAULT-VALUE}). "
                    + "\"key-\" with --key-digits 28 gives 32-byte keys whose first 20 bytes are all the same.")
    String keyPrefix;

    @Option(
            names = "--random-keys",
            description = "Keys of random bytes (all 256 values), as long as --key-prefix and --key-digits "
                    + "make them: keys whose first 8 bytes tell them apart.")
    boolean randomKeys;

    @Option(
            names = "--batch",
            defaultValue = "1",
            description =
                    "Entries inserted together (default: ${DEFAULT-VALUE}): "
                            + "reserved and filled one by one, then linked with Memtable.linkAll, as the engine inserts a batch of writes.")
    int batch;

    @Option(
            names = "--evict-bytes",
            defaultValue = "0",
            description = "Bytes of a 64 MiB buffer read after each "
                    + "insert and lookup, moving on through it (default: ${DEFAULT-VALUE}): a model of the network stack "
                    + "and the HTTP codec, which push the memtable out of the CPU caches between requests in a node.")
    int evictBytes;

    /** The buffer {@code --evict-bytes} reads, and where the next read starts (a long index). */
    private long[] evictBuffer;

    private int evictAt;
    /** Sum of the bytes read, printed so that the JIT cannot drop the reads. */
    private long evictSum;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) {
        System.exit(new CommandLine(new MemtableBench()).execute(args));
    }

    private byte[] key(long n) {
        if (randomKeys) { // the bytes of a seeded generator: a held key (n even) is never an absent one
            byte[] key = new byte[keyPrefix.length() + keyDigits];
            new SplittableRandom(n).nextBytes(key);
            return key;
        }
        return Keys.utf8(String.format(Locale.ROOT, "%s%0" + keyDigits + "d", keyPrefix, n));
    }

    /** Inserts entries in groups of {@code --batch} until the memtable is full; returns how many it took. */
    private int fillInBatches(Memtable memtable, Entry[] entries, int capacity) {
        long[] nodes = new long[batch];
        int stored = 0;
        while (stored < capacity) {
            int n = 0;
            while (n < batch && stored + n < capacity) {
                Entry e = entries[stored + n];
                long node = memtable.reserve(e.key().length, e.value().length);
                if (node == Memtable.NO_ROOM) {
                    break;
                }
                memtable.fill(node, e.key(), e.version(), e.expiresAtMs(), MemorySegment.ofArray(e.value()));
                nodes[n++] = node;
            }
            if (n > 0) {
                memtable.linkAll(nodes, 0, n);
                for (int i = 0; i < n; i++) {
                    evict();
                }
            }
            stored += n;
            if (n < batch) {
                break; // no room for the next one
            }
        }
        return stored;
    }

    /** Reads the next {@code --evict-bytes} of the eviction buffer, one long per 64-byte line. */
    private void evict() {
        if (evictBuffer == null) {
            return;
        }
        long sum = 0;
        int at = evictAt;
        for (int i = 0; i < evictBytes; i += 64) {
            sum += evictBuffer[at];
            at += 8;
            if (at >= evictBuffer.length) {
                at = 0;
            }
        }
        evictAt = at;
        evictSum += sum;
    }

    @Override
    public Integer call() {
        SplittableRandom random = new SplittableRandom(7);
        long maxKey = Math.min(500_000_000_000L, (long) Math.pow(10, keyDigits) / 2);
        if (evictBytes > 0) {
            evictBuffer = new long[64 << 17]; // 64 MiB
            java.util.Arrays.fill(evictBuffer, 1);
        }
        byte[] value = new byte[valueSize];
        Memtable memtable = null;
        byte[][] held = null; // the keys of the last fill, its first heldCount stored
        int heldCount = 0;
        int capacity = (int) (memtableBytes / 48); // more keys than any memtable of this size holds
        for (int fill = 1; fill <= rounds; fill++) { // the last fill stays for the lookups
            if (memtable != null) {
                memtable.release();
            }
            byte[][] keys = new byte[capacity][];
            Entry[] entries = new Entry[capacity];
            for (int i = 0; i < capacity; i++) {
                long n = sequential ? 1_000_000L * fill + i : random.nextLong(maxKey);
                keys[i] = key(2 * n); // even numbers: held keys
                entries[i] = Entry.value(keys[i], i + 1, value);
            }
            memtable = new Memtable(memtableBytes);
            int stored = 0;
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            if (batch <= 1) {
                while (stored < capacity && memtable.put(entries[stored])) {
                    stored++;
                    evict();
                }
            } else {
                stored = fillInBatches(memtable, entries, capacity);
            }
            long nanos = System.nanoTime() - start;
            long cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuStart;
            held = keys;
            heldCount = stored;
            System.out.printf(
                    Locale.ROOT,
                    "fill %d: %.0f ns/insert, cpu %.0f ns/insert (%s keys of %d bytes)%n",
                    fill,
                    nanos / (double) stored,
                    cpuNanos / (double) stored,
                    randomKeys ? "random-byte" : sequential ? "increasing" : "random",
                    keys[0].length);
            if (evictBytes > 0) {
                System.out.printf(
                        Locale.ROOT, "  (%d bytes read between operations; checksum %d)%n", evictBytes, evictSum);
            }
        }
        byte[][] present = new byte[lookups][];
        byte[][] absent = new byte[lookups][];
        for (int i = 0; i < lookups; i++) {
            present[i] = held[random.nextInt(heldCount)];
            absent[i] = key(2 * random.nextLong(maxKey) + 1); // odd: never held
        }
        System.out.printf(
                Locale.ROOT,
                "memtable of %d bytes holds %d entries of %d-byte values; %d lookups per kind%n",
                memtable.sizeBytes(),
                heldCount,
                valueSize,
                lookups);
        for (int round = 1; round <= rounds; round++) {
            double[] heldNs = nsPerLookup(memtable, present, true);
            double[] absentNs = nsPerLookup(memtable, absent, false);
            System.out.printf(
                    Locale.ROOT,
                    "round %d: held keys %.0f ns/lookup, absent keys %.0f ns/lookup; cpu %.0f and %.0f%n",
                    round,
                    heldNs[0],
                    absentNs[0],
                    heldNs[1],
                    absentNs[1]);
        }
        memtable.release();
        return 0;
    }

    /** Wall and thread CPU ns per lookup of {@code keys}. */
    private double[] nsPerLookup(Memtable memtable, byte[][] keys, boolean expectFound) {
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        int found = 0;
        for (byte[] k : keys) {
            if (memtable.find(k) != 0) {
                found++;
            }
            evict();
        }
        double ns = (System.nanoTime() - start) / (double) keys.length;
        double cpuNs = (THREADS.getCurrentThreadCpuTime() - cpuStart) / (double) keys.length;
        if (found != (expectFound ? keys.length : 0)) {
            throw new IllegalStateException(
                    "found " + found + " of " + keys.length + " keys, expected " + (expectFound ? "all" : "none"));
        }
        return new double[] {ns, cpuNs};
    }
}
