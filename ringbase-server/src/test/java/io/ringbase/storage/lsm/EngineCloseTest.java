package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import io.ringbase.storage.lsm.io.FileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmEngine#close()} returns only once no background thread can write to the directory: here a compaction is stuck in a slow rename for longer than close's 10 s grace; close
 * interrupts it, waits for it, and after close returns the directory sees no further operation. A close
 * whose final flush throws still closes the WAL and releases the directory lock, and a flush after close
 * says the engine is closed.
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

    /**
     * The final flush throws an unchecked exception (here from creating the WAL segment it switches to, as
     * a read of a memtable freed under it would): close still closes the WAL and releases the lock, and
     * reports the failure once everything is released. The write the flush did not reach is replayed.
     */
    @Test
    void closeReleasesTheWalAndTheLockWhenTheFinalFlushThrows() throws Exception {
        Path dir = tmp.resolve("d");
        WalCreationFails io = new WalCreationFails();
        LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io));
        await().atMost(Duration.ofSeconds(10)).until(() -> io.walCreations.get() == 2); // active and spare
        io.failing.set(true);
        long version = 1L << 40;
        engine.apply(Entry.value(Keys.utf8("a"), ++version, new byte[10]));
        engine.flush(); // takes the spare; making the next one fails
        await().atMost(Duration.ofSeconds(10)).until(() -> io.walCreations.get() == 3);
        engine.apply(Entry.value(Keys.utf8("b"), ++version, new byte[10]));

        assertThatThrownBy(engine::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("WAL segment creation");
        try (LsmEngine reopened = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(reopened.get(Keys.utf8("a"))).isNotNull();
            assertThat(reopened.get(Keys.utf8("b"))).as("replayed from the WAL").isNotNull();
        }
    }

    @Test
    void flushAfterCloseSaysTheEngineIsClosed() throws Exception {
        LsmEngine engine = LsmEngine.open(LsmOptions.defaults(tmp.resolve("d")));
        engine.apply(Entry.value(Keys.utf8("a"), 1L << 40, new byte[10]));
        engine.close();
        assertThatThrownBy(engine::flush).isInstanceOf(IOException.class).hasMessageContaining("closed");
    }

    @Test
    void closeWithoutFlushLeavesTheMemtableToTheWal() throws Exception {
        Path dir = tmp.resolve("d");
        LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir));
        engine.apply(Entry.value(Keys.utf8("a"), 1L << 40, new byte[10]));
        engine.closeWithoutFlush();
        assertThatThrownBy(engine::flush).isInstanceOf(IOException.class).hasMessageContaining("closed");
        assertThat(tables(dir)).as("no final flush wrote a table").isZero();
        try (LsmEngine reopened = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(reopened.get(Keys.utf8("a"))).as("replayed from the WAL").isNotNull();
        }
        assertThat(tables(dir))
                .as("a plain close flushes what the WAL replayed")
                .isEqualTo(1);
    }

    private static long tables(Path dir) throws IOException {
        try (var files = java.nio.file.Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".sst"))
                    .count();
        }
    }

    /** The real file system, except that creating a WAL segment throws an unchecked exception once failing. */
    private static final class WalCreationFails implements FileIo {
        final AtomicBoolean failing = new AtomicBoolean();
        final AtomicInteger walCreations = new AtomicInteger();

        @Override
        public FileChannel open(Path file, StandardOpenOption... options) throws IOException {
            boolean creates = Arrays.asList(options).contains(StandardOpenOption.CREATE_NEW)
                    || Arrays.asList(options).contains(StandardOpenOption.CREATE);
            if (creates && file.getFileName().toString().startsWith("wal-")) {
                walCreations.incrementAndGet();
                if (failing.get()) {
                    throw new IllegalStateException("WAL segment creation failed (injected)");
                }
            }
            return FileIo.DISK.open(file, options);
        }

        @Override
        public void rename(Path from, Path to) throws IOException {
            FileIo.DISK.rename(from, to);
        }

        @Override
        public boolean delete(Path file) throws IOException {
            return FileIo.DISK.delete(file);
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            FileIo.DISK.syncDirectory(dir);
        }

        @Override
        public void createDirectory(Path dir) throws IOException {
            FileIo.DISK.createDirectory(dir);
        }

        @Override
        public void link(Path link, Path existing) throws IOException {
            FileIo.DISK.link(link, existing);
        }
    }
}
