package io.ringbase.storage.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockCacheTest {

    @TempDir
    Path dir;

    /** A block's bytes that tell which (table, block) they are and how long: a reader can check any copy. */
    private static byte[] block(long table, long block, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (table * 31 + block * 7 + i);
        }
        return b;
    }

    @Test
    void aBlockPutIsFoundWithItsBytes() {
        BlockCache cache = new BlockCache(1 << 20);
        byte[] b = block(1, 5, 3000);
        cache.put(1, 5, MemorySegment.ofArray(b), b.length);
        byte[] dst = new byte[BlockCache.FRAME_BYTES];
        assertThat(cache.get(1, 5, MemorySegment.ofArray(dst))).isEqualTo(3000);
        assertThat(Arrays.copyOf(dst, 3000)).isEqualTo(b);
        assertThat(cache.get(1, 6, MemorySegment.ofArray(dst))).isEqualTo(-1);
        assertThat(cache.get(2, 5, MemorySegment.ofArray(dst))).isEqualTo(-1);
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(2);
    }

    @Test
    void itNeverHoldsMoreThanItsFrames() {
        BlockCache cache = new BlockCache(256 * 1024); // 3 sets of 8 frames
        assertThat(cache.capacityBytes()).isEqualTo(3 * BlockCache.WAYS * BlockCache.FRAME_BYTES);
        byte[] dst = new byte[BlockCache.FRAME_BYTES];
        for (long b = 0; b < 1000; b++) {
            byte[] bytes = block(7, b, 100);
            cache.put(7, b, MemorySegment.ofArray(bytes), bytes.length);
        }
        int found = 0;
        for (long b = 0; b < 1000; b++) {
            if (cache.get(7, b, MemorySegment.ofArray(dst)) == 100) {
                assertThat(Arrays.copyOf(dst, 100)).isEqualTo(block(7, b, 100));
                found++;
            }
        }
        assertThat(found).isBetween(1, 3 * BlockCache.WAYS);
    }

    @Test
    void tooLargeBlocksAndAZeroCacheHoldNothing() {
        byte[] dst = new byte[BlockCache.FRAME_BYTES];
        BlockCache cache = new BlockCache(1 << 20);
        byte[] big = new byte[BlockCache.FRAME_BYTES + 1];
        cache.put(1, 1, MemorySegment.ofArray(big), big.length);
        assertThat(cache.get(1, 1, MemorySegment.ofArray(dst))).isEqualTo(-1);
        BlockCache.NONE.put(1, 1, MemorySegment.ofArray(dst), 10);
        assertThat(BlockCache.NONE.get(1, 1, MemorySegment.ofArray(dst))).isEqualTo(-1);
        assertThat(BlockCache.NONE.capacityBytes()).isZero();
        assertThatThrownBy(() -> new BlockCache(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Readers racing writers over few frames only ever get a block's own bytes, never a torn mix. */
    @Test
    void concurrentReadersNeverSeeATornBlock() throws Exception {
        BlockCache cache = new BlockCache(140 * 1024); // 16 frames: constant eviction
        AtomicLong hits = new AtomicLong();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                boolean writer = t % 2 == 0;
                done.add(pool.submit(() -> {
                    byte[] dst = new byte[BlockCache.FRAME_BYTES];
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int i = 0; i < 200_000; i++) {
                        long b = rnd.nextInt(64);
                        int length = 1000 + (int) (b * 97);
                        if (writer) {
                            byte[] bytes = block(3, b, length);
                            cache.put(3, b, MemorySegment.ofArray(bytes), length);
                        } else if (cache.get(3, b, MemorySegment.ofArray(dst)) >= 0) {
                            assertThat(Arrays.copyOf(dst, length)).isEqualTo(block(3, b, length));
                            hits.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(hits.get()).isPositive();
    }

    @Test
    void pointReadsOfCompressedBlocksGoThroughTheCache() throws IOException {
        Path file = dir.resolve("c.sst");
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            entries.add(Entry.value(String.format("k%05d", i).getBytes(StandardCharsets.UTF_8), i + 1, new byte[100]));
        }
        Tables.write(file, entries);
        BlockCache cache = new BlockCache(1 << 20);
        try (SstableReader r = SstableReader.open(file, cache)) {
            EntryLocation at = new EntryLocation();
            for (int round = 0; round < 2; round++) {
                for (Entry e : entries) {
                    assertThat(r.locate(e.key(), EntryFormat.keyPrefix(e.key()), at))
                            .isTrue();
                    assertThat(EntryFormat.read(
                                    at.segment(), at.offset(), at.segment().byteSize()))
                            .isEqualTo(e);
                }
            }
            assertThat(cache.hits())
                    .as("the second round, and the first round's later keys of each block")
                    .isGreaterThan(1000);
            try (var scan = r.iterator(null, null)) {
                scan.forEachRemaining(e -> {});
            }
            assertThat(cache.hits() + cache.misses())
                    .as("a scan does not use the cache")
                    .isEqualTo(2000);
        }
    }
}
