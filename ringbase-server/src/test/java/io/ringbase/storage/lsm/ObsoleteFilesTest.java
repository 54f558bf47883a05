package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.DiskFault;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import io.ringbase.storage.lsm.sstable.SstableReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction input whose delete fails is not left as an orphan until the next restart: the
 * compaction still succeeds (its output is published), and the delete is retried in the background
 * until it works.
 */
class ObsoleteFilesTest {

    @TempDir
    Path tmp;

    @Test
    void aCompactionInputWhoseDeleteFailsOnceIsDeletedByARetry() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path dir = tmp.resolve("d");
        long version = 1L << 40;
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            for (String k : new String[] {"a", "b", "c"}) {
                engine.apply(Entry.value(Keys.utf8(k), ++version, Keys.utf8("value-" + k)));
                engine.flush();
            }
            List<Path> inputs =
                    engine.liveTables().stream().map(SstableReader::path).toList();
            Path stuck = inputs.get(1);
            io.failNth(Op.DELETE, 1, DiskFault.IO_ERROR, stuck::equals);

            assertThat(engine.compactAll())
                    .as("the compaction is published all the same")
                    .isEqualTo(3);
            assertThat(engine.tableCount()).isEqualTo(1);
            assertThat(inputs.get(0)).doesNotExist();
            assertThat(inputs.get(2)).as("the other inputs are deleted at once").doesNotExist();
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(20))
                    .alias("the failed delete is retried")
                    .until(() -> !Files.exists(stuck));
            assertThat(engine.get(Keys.utf8("b"))).isNotNull();
        }
    }

    @Test
    void retriesStopWhenTheEngineCloses() throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo().failAll(Op.DELETE, DiskFault.IO_ERROR);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        AtomicBoolean closing = new AtomicBoolean();
        Path file = Files.writeString(tmp.resolve("sst-00000000000000000001.sst"), "x");
        ObsoleteFiles obsolete = new ObsoleteFiles(io, thread, closing::get, () -> {});
        obsolete.delete(file, "which a compaction replaced");
        assertThat(obsolete.pendingCount()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> io.count(Op.DELETE) >= 3); // retried, backing off
        closing.set(true);
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> obsolete.pendingCount() == 0);
        assertThat(file).as("left for the next start to delete").exists();
        thread.shutdown();
        assertThat(thread.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
}
