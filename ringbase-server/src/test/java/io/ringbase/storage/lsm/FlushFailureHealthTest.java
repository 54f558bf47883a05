package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.DiskFault;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import io.ringbase.storage.lsm.manifest.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link LsmEngine#unwritableReason()} says about flushes is true now: a flush that published its
 * table is a flush that worked, even if deleting its WAL segment afterwards failed, so the node stays
 * writable with no later flush needed to clear a stale failure; the segment left behind is deleted by
 * a background retry once deletes work again.
 */
class FlushFailureHealthTest {

    private static final Predicate<Path> WAL = p -> p.getFileName().toString().startsWith("wal-");

    @TempDir
    Path tmp;

    @Test
    void aFailedWalDeleteAfterAPublishedFlushLeavesTheNodeWritable() throws IOException {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        long version = 1L << 40;
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            io.failAll(Op.DELETE, DiskFault.IO_ERROR, WAL);
            engine.apply(Entry.value(Keys.utf8("a"), ++version, Keys.utf8("flushed")));
            engine.flush();
            assertThat(engine.tableCount()).as("the flush published its table").isEqualTo(1);
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5))
                    .alias("the flush thread met the failed delete")
                    .until(() -> engine.stats().diskErrors() >= 1);
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(2))
                    .pollInterval(Duration.ofMillis(10))
                    .alias("no stale flush failure reported")
                    .until(() -> engine.unwritableReason() == null);
            long leftOver = walSegments(dir);
            assertThat(leftOver)
                    .as("the flushed memtable's segment is left behind")
                    .isEqualTo(3); // + active, spare

            io.heal();
            engine.apply(Entry.value(Keys.utf8("b"), ++version, Keys.utf8("flushed later")));
            engine.flush();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5))
                    .alias("a background retry deleted the segment left behind")
                    .until(() -> walSegments(dir) == 2);
            assertThat(engine.unwritableReason()).isNull();
        }
        try (LsmEngine reopened = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(reopened.get(Keys.utf8("a"))).isNotNull();
            assertThat(reopened.get(Keys.utf8("b"))).isNotNull();
        }
    }

    private static long walSegments(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> FileNames.parse(p.getFileName().toString())
                            .filter(f -> f.kind() == FileNames.Kind.WAL)
                            .isPresent())
                    .count();
        }
    }
}
