package io.ringbase.storage.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Keys;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The off-heap memtable against a {@code TreeMap} model: writes from several threads at once (values,
 * overwrites, tombstones, expiries), in a memtable small enough that slabs run out mid-entry and some
 * writes are refused; then every key read back, every range scanned, and the flush view compared.
 * Writes go in one by one ({@link Memtable#put}) or in batches ({@link Memtable#fill}, then
 * {@link Memtable#linkAll}, as the engine writes a batch), where one batch may hold several versions of
 * a key and another thread's writes land among its interleaved searches.
 */
class MemtablePropertyTest {

    @Property(tries = 60)
    void concurrentWritesMatchATreeMapOfTheNewestAcceptedEntries(
            @ForAll("operations") List<Entry> operations,
            @ForAll @IntRange(min = 1, max = 4) int threads,
            @ForAll @IntRange(min = 16, max = 256) int limitKiB)
            throws Exception {
        check(operations, threads, limitKiB, 1);
    }

    @Property(tries = 60)
    void batchedWritesMatchATreeMapOfTheNewestAcceptedEntries(
            @ForAll("operations") List<Entry> operations,
            @ForAll @IntRange(min = 1, max = 4) int threads,
            @ForAll @IntRange(min = 16, max = 256) int limitKiB,
            @ForAll @IntRange(min = 2, max = 24) int batch)
            throws Exception {
        check(operations, threads, limitKiB, batch);
    }

    /**
     * As {@link #batchedWritesMatchATreeMapOfTheNewestAcceptedEntries}, with keys whose 8-byte prefixes
     * tie: a shared stem of 8 to 32 bytes, or a short key, then bytes such as 0x00, 0x7F and 0x80.
     */
    @Property(tries = 40)
    void writesOfKeysThatShareTheirFirst8BytesMatchATreeMap(
            @ForAll("sharedPrefixOperations") List<Entry> operations,
            @ForAll @IntRange(min = 1, max = 4) int threads,
            @ForAll @IntRange(min = 1, max = 8) int batch)
            throws Exception {
        check(operations, threads, 256, batch);
    }

    private static void check(List<Entry> operations, int threads, int limitKiB, int batch) throws Exception {
        Memtable mt = new Memtable(limitKiB * 1024L);
        List<List<Entry>> perThread = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            perThread.add(new ArrayList<>());
        }
        for (int i = 0; i < operations.size(); i++) {
            perThread.get(i % threads).add(operations.get(i));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Entry>>> accepted = new ArrayList<>();
        for (List<Entry> mine : perThread) {
            accepted.add(pool.submit(() -> {
                assertThat(start.await(60, TimeUnit.SECONDS)).isTrue();
                return batch == 1 ? putOneByOne(mt, mine) : putInBatches(mt, mine, batch);
            }));
        }
        start.countDown();
        NavigableMap<byte[], Entry> model = new TreeMap<>(Keys.ORDER);
        for (Future<List<Entry>> f : accepted) {
            for (Entry e : f.get(60, TimeUnit.SECONDS)) {
                model.merge(e.key(), e, Entry::newer);
            }
        }
        pool.shutdown();
        try {
            assertThat(mt.sizeBytes())
                    .as("within the limit (one oversize entry allowed when empty)")
                    .isLessThanOrEqualTo(Math.max(
                            limitKiB * 1024L,
                            Slabs.slabBytesFor(limitKiB * 1024L) + Slabs.align(maxEntryNode(operations))));
            for (Entry e : operations) {
                assertThat(mt.get(e.key())).as("get %s", e).isEqualTo(model.get(e.key()));
            }
            List<Entry> flushed = new ArrayList<>();
            mt.forEachNewest((s, o) -> flushed.add(EntryFormat.read(s, o, o + EntryFormat.size(s, o))));
            assertThat(flushed).containsExactlyElementsOf(model.values());
            List<byte[]> bounds = new ArrayList<>(model.keySet());
            bounds.add(Keys.utf8("k"));
            bounds.add(Keys.utf8("k5~"));
            for (int i = 0; i + 1 < bounds.size(); i += 3) {
                byte[] from = bounds.get(i);
                byte[] to = bounds.get(i + 1);
                List<Entry> expected = Keys.compare(from, to) < 0
                        ? List.copyOf(model.subMap(from, true, to, false).values())
                        : List.of();
                assertThat(scan(mt, from, to)).containsExactlyElementsOf(expected);
            }
        } finally {
            mt.release();
        }
    }

    private static List<Entry> putOneByOne(Memtable mt, List<Entry> entries) {
        List<Entry> stored = new ArrayList<>();
        for (Entry e : entries) {
            if (mt.put(e)) {
                stored.add(e);
            }
        }
        return stored;
    }

    /** Reserves and fills up to {@code batch} entries, then links them together; stops at the first refused. */
    private static List<Entry> putInBatches(Memtable mt, List<Entry> entries, int batch) {
        List<Entry> stored = new ArrayList<>();
        long[] nodes = new long[batch];
        int next = 0;
        boolean full = false;
        while (next < entries.size() && !full) {
            int n = 0;
            while (n < batch && next < entries.size()) {
                Entry e = entries.get(next);
                byte[] value = e.value();
                long node = mt.reserve(e.key().length, value == null ? 0 : value.length);
                if (node == Memtable.NO_ROOM) {
                    full = true;
                    break;
                }
                mt.fill(
                        node,
                        e.key(),
                        e.version(),
                        e.expiresAtMs(),
                        value == null ? null : MemorySegment.ofArray(value));
                nodes[n++] = node;
                stored.add(e);
                next++;
            }
            if (n > 0) {
                mt.linkAll(nodes, 0, n);
            }
        }
        return stored;
    }

    private static long maxEntryNode(List<Entry> operations) {
        long max = 0;
        for (Entry e : operations) {
            max = Math.max(max, Memtable.maxNodeBytes(e.key().length, e.value() == null ? 0 : e.value().length));
        }
        return max;
    }

    private static List<Entry> scan(Memtable mt, byte[] from, byte[] to) {
        List<Entry> out = new ArrayList<>();
        try (var it = mt.iterator(from, to)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    @Provide
    Arbitrary<List<Entry>> operations() {
        return operationsOn(Arbitraries.integers().between(0, 60).map(i -> Keys.utf8("k" + i)));
    }

    @Provide
    Arbitrary<List<Entry>> sharedPrefixOperations() {
        Arbitrary<String> stems =
                Arbitraries.of("k", "key-0000", "key-00000000123", "key-0000000000000000000000001234");
        // up to 9 bytes after a stem of 8: some keys differ in the first byte of the word past the prefix
        Arbitrary<byte[]> tails = Arbitraries.of((byte) 0, (byte) 0x7f, (byte) 0x80, (byte) 0xff)
                .array(byte[].class)
                .ofMaxSize(9);
        return operationsOn(Combinators.combine(stems, tails).as((stem, tail) -> {
            byte[] s = Keys.utf8(stem);
            byte[] k = java.util.Arrays.copyOf(s, s.length + tail.length);
            System.arraycopy(tail, 0, k, s.length, tail.length);
            return k;
        }));
    }

    private static Arbitrary<List<Entry>> operationsOn(Arbitrary<byte[]> keys) {
        Arbitrary<Long> versions = Arbitraries.longs().between(1, 40);
        Arbitrary<Long> expiries = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.just(Entry.NO_EXPIRY)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(1, 5)));
        // mostly small values, sometimes one over a quarter slab (a slab of its own), sometimes a tombstone
        Arbitrary<byte[]> values = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(
                        8, Arbitraries.bytes().array(byte[].class).ofMaxSize(300)),
                net.jqwik.api.Tuple.of(
                        1, Arbitraries.integers().between(4_000, 20_000).map(byte[]::new)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just((byte[]) null)));
        return Combinators.combine(keys, versions, expiries, values)
                .as((k, v, x, val) -> new Entry(k, v, val == null ? Entry.NO_EXPIRY : x, val))
                .list()
                .ofMinSize(1)
                .ofMaxSize(400);
    }
}
