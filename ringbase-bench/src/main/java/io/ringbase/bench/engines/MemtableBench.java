package io.ringbase.bench.engines;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.memtable.Memtable;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Inserts into a memtable and point lookups in it ({@code bench/memtable-bench.sh}). Each round fills a
 * new memtable with 16-byte keys (random, or increasing with {@code --sequential}) and values of
 * {@code --value-size} bytes until it has no room, and prints ns per insert. The last one stays: each
 * round then looks up {@code --lookups} keys it holds and as many it does not (the common case of a read
 * under random keys, where most keys are in SSTables), and prints ns per lookup. The first rounds are
 * JIT warm-up.
 */
@Command(name = "memtable-bench", mixinStandardHelpOptions = true,
        description = "Point lookups in a full memtable: keys it holds and keys it does not.")
public final class MemtableBench implements Callable<Integer> {

    @Option(names = "--memtable-size", defaultValue = "16777216", description = "Memtable limit, bytes (default: ${DEFAULT-VALUE}).")
    long memtableBytes;

    @Option(names = "--value-size", defaultValue = "100", description = "Value size, bytes (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--lookups", defaultValue = "1000000", description = "Lookups per round and kind (default: ${DEFAULT-VALUE}).")
    int lookups;

    @Option(names = "--rounds", defaultValue = "5", description = "Rounds (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--sequential", description = "Insert keys in increasing order (a PUT of new keys: sequence "
            + "numbers, timestamps) instead of random order.")
    boolean sequential;

    public static void main(String[] args) {
        System.exit(new CommandLine(new MemtableBench()).execute(args));
    }

    private static byte[] key(long n) {
        return Keys.utf8(String.format(Locale.ROOT, "k%015d", n));
    }

    @Override
    public Integer call() {
        SplittableRandom random = new SplittableRandom(7);
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
                long n = sequential ? 1_000_000L * fill + i : random.nextLong(500_000_000_000L);
                keys[i] = key(2 * n); // even numbers: held keys
                entries[i] = Entry.value(keys[i], i + 1, value);
            }
            memtable = new Memtable(memtableBytes);
            int stored = 0;
            long start = System.nanoTime();
            while (stored < capacity && memtable.put(entries[stored])) {
                stored++;
            }
            long nanos = System.nanoTime() - start;
            held = keys;
            heldCount = stored;
            System.out.printf(Locale.ROOT, "fill %d: %.0f ns/insert (%s keys)%n", fill, nanos / (double) stored,
                    sequential ? "increasing" : "random");
        }
        byte[][] present = new byte[lookups][];
        byte[][] absent = new byte[lookups][];
        for (int i = 0; i < lookups; i++) {
            present[i] = held[random.nextInt(heldCount)];
            absent[i] = key(2 * random.nextLong(500_000_000_000L) + 1); // odd: never held
        }
        System.out.printf(Locale.ROOT, "memtable of %d bytes holds %d entries of %d-byte values; %d lookups per kind%n",
                memtable.sizeBytes(), heldCount, valueSize, lookups);
        for (int round = 1; round <= rounds; round++) {
            System.out.printf(Locale.ROOT, "round %d: held keys %.0f ns/lookup, absent keys %.0f ns/lookup%n", round,
                    nsPerLookup(memtable, present, true), nsPerLookup(memtable, absent, false));
        }
        memtable.release();
        return 0;
    }

    private static double nsPerLookup(Memtable memtable, byte[][] keys, boolean expectFound) {
        long start = System.nanoTime();
        int found = 0;
        for (byte[] k : keys) {
            if (memtable.find(k) != 0) {
                found++;
            }
        }
        double ns = (System.nanoTime() - start) / (double) keys.length;
        if (found != (expectFound ? keys.length : 0)) {
            throw new IllegalStateException("found " + found + " of " + keys.length + " keys, expected "
                    + (expectFound ? "all" : "none"));
        }
        return ns;
    }
}
