package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many writers on a memtable small enough to switch every few dozen writes, some on the non-blocking
 * path (an event loop's) and some on the blocking one, while images of the directory are taken as a
 * crash would leave them: every write acknowledged before an image must be in it after recovery. Races
 * between writers that each brought a WAL segment to the switch once activated segments out of number
 * order, and recovery then deleted one holding acknowledged writes.
 */
class ConcurrentSwitchTest {

    @TempDir
    Path tmp;

    @Test
    void everyWriteAcknowledgedBeforeACrashImageIsInItAfterRecovery() throws Exception {
        Path dir = tmp.resolve("d");
        AtomicLong version = new AtomicLong(1L << 40);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        List<Path> images = new ArrayList<>();
        List<Set<String>> ackedBefore = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withMemtableBytes(4096))) {
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                boolean eventLoopStyle = t % 2 == 0;
                int thread = t;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 600 && !stop.get(); i++) {
                        String key = "t" + thread + "-" + i;
                        byte[] k = Keys.utf8(key);
                        MemorySegment v = MemorySegment.ofArray(Keys.utf8("v" + i));
                        long ver = version.incrementAndGet();
                        if (!eventLoopStyle || !engine.tryApply(k, ver, Entry.NO_EXPIRY, v)) {
                            engine.apply(k, ver, Entry.NO_EXPIRY, v);
                        }
                        acked.add(key);
                    }
                    return null;
                }));
            }
            for (int n = 0; n < 6; n++) {
                // an image every 500 acknowledged writes, while the writers go on (3600 in all)
                int writes = (n + 1) * 500;
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(1))
                        .until(acked::size, s -> s >= writes);
                Set<String> before = Set.copyOf(acked);
                Path image = tmp.resolve("image-" + n);
                CrashImage.copy(engine, dir, image);
                images.add(image);
                ackedBefore.add(before);
            }
            for (Future<?> w : writers) {
                w.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        for (int n = 0; n < images.size(); n++) {
            try (LsmEngine recovered =
                    LsmEngine.open(LsmOptions.defaults(images.get(n)).withMemtableBytes(4096))) {
                for (String key : ackedBefore.get(n)) {
                    Entry e = recovered.get(Keys.utf8(key));
                    assertThat(e).as("%s acknowledged before image %d", key, n).isNotNull();
                    String i = key.substring(key.indexOf('-') + 1);
                    assertThat(e.value()).isEqualTo(Keys.utf8("v" + i));
                }
            }
        }
        try (LsmEngine reopened = LsmEngine.open(LsmOptions.defaults(dir))) {
            for (String key : acked) {
                assertThat(reopened.get(Keys.utf8(key))).as(key).isNotNull();
            }
        }
    }
}
