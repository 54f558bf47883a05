package io.ringbase.storage.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Concurrent writers, batches included, against point reads and the entry count: a key whose insert
 * has returned is found, whatever batches of redundant entries (older versions) other writers link
 * meanwhile, and the count is that of the entries linked.
 */
class MemtableConcurrentBatchTest {

    /** Rounds of {@link #TABLES} fresh memtables: one race per memtable, over its first batch. */
    private static final int ROUNDS = 10;

    private static final int TABLES = 100;
    /** Keys of the writer's batch: the duplicates run while it links the keys after the first. */
    private static final int BATCH = 16;

    private static byte[] key(int i) {
        return Keys.utf8("k" + i);
    }

    /** Reserves and fills a node for {@code key} at {@code version}, not linked. */
    private static long filled(Memtable mt, byte[] key, long version) {
        byte[] value = Keys.utf8("v");
        long node = mt.reserve(key.length, value.length);
        mt.fill(node, key, version, Entry.NO_EXPIRY, MemorySegment.ofArray(value));
        return node;
    }

    /**
     * A writer links a batch of new keys into an empty memtable while a second writer, from the moment
     * the batch's first key is visible until the batch returns, keeps linking a batch of two older
     * versions of that key, which links nothing. A reader then looks up every key of the batch, while
     * the duplicates may still run and after them.
     *
     * <p>This is the window in which an emptiness test that read a count updated by read-modify-write
     * went wrong: the all-duplicate batch read the count before the writer's batch added to it and
     * wrote it back after, leaving 0 in a memtable that holds the batch. The writer waits for the
     * duplicator to be ready at each memtable so that both are running when it links (on a loaded
     * machine they are otherwise rarely on a CPU at once); about one memtable in ten was then hit.
     */
    @Test
    @Timeout(120)
    void anAllDuplicateBatchNeverHidesAKeyWhoseBatchReturned() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Memtable[] tables = new Memtable[TABLES];
                long[][] batches = new long[TABLES][BATCH];
                long[][] duplicates = new long[TABLES][];
                for (int t = 0; t < TABLES; t++) {
                    Memtable mt = new Memtable(16 << 10);
                    tables[t] = mt;
                    for (int i = 0; i < BATCH; i++) {
                        batches[t][i] = filled(mt, key(i), 2);
                    }
                    duplicates[t] = new long[] {filled(mt, key(0), 1), filled(mt, key(0), 1)};
                }
                CyclicBarrier start = new CyclicBarrier(2);
                AtomicInteger ready = new AtomicInteger(-1); // the memtable the duplicator waits at
                AtomicInteger returned = new AtomicInteger(); // memtables whose batch has returned
                Future<?> writer = pool.submit(() -> {
                    try {
                        start.await(30, TimeUnit.SECONDS);
                        for (int t = 0; t < TABLES; t++) {
                            awaitAtLeast(ready, t);
                            assertThat(tables[t].linkAll(batches[t], 0, BATCH)).isEqualTo(BATCH);
                            returned.set(t + 1);
                        }
                        return null;
                    } finally {
                        returned.set(TABLES); // releases the duplicator if this failed
                    }
                });
                Future<Integer> duplicator = pool.submit(() -> {
                    try {
                        start.await(30, TimeUnit.SECONDS);
                        int linked = 0;
                        for (int t = 0; t < TABLES; t++) {
                            Memtable mt = tables[t];
                            ready.set(t);
                            // until the batch's first key is linked
                            while (mt.isEmpty() && returned.get() <= t) {
                                Thread.onSpinWait();
                            }
                            do {
                                linked += mt.linkAll(duplicates[t], 0, duplicates[t].length);
                            } while (returned.get() <= t);
                        }
                        return linked;
                    } finally {
                        ready.set(TABLES); // releases the writer if this failed
                    }
                });
                writer.get(60, TimeUnit.SECONDS);
                for (int t = 0; t < TABLES; t++) {
                    assertFound(tables[t], round, t, "while the duplicates may run");
                }
                assertThat(duplicator.get(60, TimeUnit.SECONDS))
                        .as("older versions linked")
                        .isZero();
                for (int t = 0; t < TABLES; t++) {
                    assertFound(tables[t], round, t, "after the duplicates");
                    assertThat(tables[t].count())
                            .as("round %d, memtable %d: entries linked", round, t)
                            .isEqualTo(BATCH);
                    tables[t].release();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Two writers linking new keys into one memtable, one by one and in batches, both at once: the count
     * is exactly the entries linked. It sizes the Bloom filter of the table the memtable is flushed to,
     * which must not be sized for fewer keys than it gets. The writers meet before each round so that
     * both are running while they link.
     */
    @Test
    @Timeout(120)
    void theCountIsExactUnderConcurrentWriters() throws Exception {
        int rounds = 2_000;
        int perRound = 16;
        Memtable mt = new Memtable(64 << 20);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            AtomicInteger[] arrived = {new AtomicInteger(-1), new AtomicInteger(-1)};
            List<Future<Integer>> linked = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                linked.add(pool.submit(() -> {
                    try {
                        int mine = 0;
                        long[] nodes = new long[perRound];
                        for (int r = 0; r < rounds; r++) {
                            for (int i = 0; i < perRound; i++) {
                                nodes[i] = filled(mt, Keys.utf8("w" + writer + "-" + r + "-" + i), 1);
                            }
                            arrived[writer].set(r);
                            awaitAtLeast(arrived[1 - writer], r);
                            if (r % 2 == 0) {
                                mine += mt.linkAll(nodes, 0, perRound);
                            } else {
                                for (int i = 0; i < perRound; i++) {
                                    mine += mt.linkAll(nodes, i, i + 1); // one by one, as insert links
                                }
                            }
                        }
                        return mine;
                    } finally {
                        arrived[writer].set(rounds); // releases the other writer if this failed
                    }
                }));
            }
            int total = 0;
            for (Future<Integer> f : linked) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(2 * rounds * perRound);
            assertThat(mt.count()).as("count of %d linked entries", total).isEqualTo(total);
        } finally {
            pool.shutdownNow();
            mt.release();
        }
    }

    private static void assertFound(Memtable mt, int round, int table, String when) {
        for (int i = 0; i < BATCH; i++) {
            assertThat(mt.find(key(i)))
                    .as("round %d, memtable %d, %s: key %d of a returned batch", round, table, when, i)
                    .isNotZero();
        }
    }

    /** Spins until {@code value} reaches {@code target}, yielding now and then (the machine may be busy). */
    @SuppressWarnings("ThreadPriorityCheck") // the yield is meant: spinners must not starve the threads they wait for
    private static void awaitAtLeast(AtomicInteger value, int target) {
        for (int spins = 1; value.get() < target; spins++) {
            if (spins % 1024 == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
