package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmEngine#close()} returns only once no background thread can write to the directory: here a compaction is stuck in a slow rename for longer than close's 10 s grace; close
 * interrupts it, waits for it, and after close returns the directory sees no further operation.
 */
class EngineCloseTest {

    @TempDir
    Path tmp;

    private static Map<Op, Long> counts(FaultInjectingFileIo io) {
        Map<Op, Long> m = new EnumMap<>(Op.class);
        for (Op op : Op.values()) {
            m.put(op, io.count(op));
        }
        return m;
    }

    @Test
    void closeWaitsForACompactionStuckInTheFileSystem() throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmEngine engine = LsmEngine.open(LsmOptions.defaults(tmp.resolve("d"))
                .withMemtableBytes(64 * 1024)
                .withFileIo(io)
                .withCompaction(new CompactionOptions(32, 32, 32L << 20, 0.5, 1.5)));
        long version = 1L << 40;
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 100; i++) {
                engine.apply(Entry.value(Keys.utf8("k" + t + "-" + i), ++version, new byte[100]));
            }
            engine.flush();
        }
        long renames = io.count(Op.RENAME);
        io.delay(Op.RENAME, (LsmEngine.STOP_GRACE_S + 3) * 1000); // longer than close's grace period
        CompletableFuture<Void> compaction = CompletableFuture.runAsync(() -> {
            try {
                engine.compactAll();
            } catch (Exception expected) { // interrupted or closed under it
            }
        });
        // until the compaction installs its output: it sleeps in that rename
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> io.count(Op.RENAME), n -> n > renames);
        assertThat(io.count(Op.RENAME)).as("the compaction reached its rename").isGreaterThan(renames);

        engine.close();
        Map<Op, Long> atClose = counts(io);
        // none for 4 s: past the end of the rename's delay under the old 10 s cap
        await().during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(5))
                .until(() -> counts(io).equals(atClose));
        assertThat(counts(io)).as("no file operation after close returned").isEqualTo(atClose);
        compaction.get(10, TimeUnit.SECONDS);
    }
}
