package io.ringbase.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.hash.XxHash64;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.MemoryTempDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ManagedEngine#cleanup} at a size where RocksDB's deletes span several write batches and the LSM
 * merge several tables, with a writer and a reader running throughout, on every engine: every write of a
 * kept key acknowledged during the cleanup is there after it, reads of kept keys never miss, and every
 * rejected key written before it is gone. (The model test of what a cleanup leaves is
 * {@link EngineCleanupPropertiesTest}.)
 */
class EngineCleanupContractTest {

    private static final int KEYS = 5_000;
    /** Keeps two keys in three. */
    private static final KeyFilter KEEP = key -> Long.remainderUnsigned(XxHash64.hash(key), 3) != 0;

    @TempDir(factory = MemoryTempDir.class) // fsyncs by the thousand; no power loss is tested here
    Path tmp;

    private final AtomicLong version = new AtomicLong(1L << 40);

    private static byte[] key(String prefix, int i) {
        return (prefix + i).getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(EngineKind.class)
    void keptKeysWrittenAndReadDuringACleanupAreNeverLost(EngineKind kind) throws Exception {
        LsmOptions options = LsmOptions.defaults(tmp.resolve("d")).withMemtableBytes(256 * 1024);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (ManagedEngine engine = StorageEngineContractTest.open(kind, options)) {
            long rejected = 0;
            for (int i = 0; i < KEYS; i++) {
                byte[] k = key("k", i);
                engine.apply(Entry.value(k, version.incrementAndGet(), k));
                rejected += KEEP.keep(k) ? 0 : 1;
                if (i % 1_000 == 999) {
                    engine.flush();
                }
            }
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch running = new CountDownLatch(2);
            Future<List<byte[]>> writer = threads.submit(() -> {
                List<byte[]> acknowledged = new ArrayList<>();
                running.countDown();
                for (int i = 0; !stop.get() || acknowledged.size() < 100; i++) {
                    byte[] k = key("w", i);
                    if (KEEP.keep(k)) {
                        engine.apply(Entry.value(k, version.incrementAndGet(), k));
                        acknowledged.add(k);
                    }
                }
                return acknowledged;
            });
            Future<Integer> reader = threads.submit(() -> {
                running.countDown();
                int reads = 0;
                for (int i = 0; !stop.get() || reads < 100; i = (i + 1) % KEYS) {
                    byte[] k = key("k", i);
                    if (KEEP.keep(k)) {
                        Entry e = engine.get(k);
                        assertThat(e)
                                .as("kept key %s during the cleanup", new String(k, StandardCharsets.UTF_8))
                                .isNotNull();
                        assertThat(e.value()).isEqualTo(k);
                        reads++;
                    }
                }
                return reads;
            });
            assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
            long removed;
            try {
                removed = engine.cleanup(KEEP);
            } finally {
                stop.set(true);
            }
            List<byte[]> written = writer.get(30, TimeUnit.SECONDS);
            assertThat(reader.get(30, TimeUnit.SECONDS)).isPositive();
            assertThat(removed).isEqualTo(rejected);
            for (int i = 0; i < KEYS; i++) {
                byte[] k = key("k", i);
                Entry e = engine.get(k);
                if (KEEP.keep(k)) {
                    assertThat(e).as("kept k%d", i).isNotNull();
                } else {
                    assertThat(e).as("rejected k%d", i).isNull();
                }
            }
            for (byte[] k : written) {
                assertThat(engine.get(k)).as("written during the cleanup").isNotNull();
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
