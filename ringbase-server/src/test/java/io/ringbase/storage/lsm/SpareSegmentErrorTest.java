package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@link Error} (the {@link OutOfMemoryError} of a syncer thread that could not be started) while the
 * flush thread makes the next WAL segment ahead of time must not stop that thread's other work: the
 * switched-out segment is still closed and its memtable flushed, so writes go on rather than stalling
 * into 503s for good.
 */
class SpareSegmentErrorTest {

    private static final Predicate<Path> WAL = p -> p.getFileName().toString().startsWith("wal-");

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    @Test
    @Timeout(60)
    void anErrorMakingTheSpareSegmentStillFlushesAndWritesGoOn() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmOptions options =
                LsmOptions.defaults(tmp.resolve("d")).withMemtableBytes(8192).withFileIo(io);
        try (LsmEngine engine = LsmEngine.open(options)) {
            Path dir = options.dataDir();
            await().atMost(Duration.ofSeconds(10)).until(() -> walSegments(dir) == 2); // the active one and the spare
            // the spare made after the first switch fails as a thread that cannot start would
            io.throwNth(Op.CREATE, 1, new OutOfMemoryError("unable to create native thread"), WAL);
            int written = 0;
            while (engine.tableCount() == 0 && written < 200) {
                put(engine, written++);
                if (written % 40 == 0) {
                    // the first switch happened; its memtable must be flushed without any further help
                    await().atMost(Duration.ofSeconds(10)).until(() -> engine.tableCount() > 0);
                }
            }
            assertThat(engine.tableCount())
                    .as("the switched-out memtable was flushed")
                    .isPositive();
            for (int i = 0; i < 200; i++) { // several more switches: a spare is made again
                put(engine, written++);
            }
            assertThat(engine.unwritableReason()).isNull();
            assertThat(engine.get(Keys.utf8("key000000"))).isNotNull();
            assertThat(engine.get(Keys.utf8(String.format("key%06d", written - 1))))
                    .isNotNull();
        }
    }

    private static long walSegments(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(WAL).count();
        }
    }

    private void put(LsmEngine engine, int i) throws IOException {
        engine.apply(Entry.value(Keys.utf8(String.format("key%06d", i)), ++version, Keys.utf8("v".repeat(200))));
    }
}
