package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.DiskFault;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageFaultException;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.manifest.Manifest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disk faults injected through the file layer at each place the engine writes (WAL append, WAL fsync,
 * segment creation, SSTable write, manifest publish): the write fails with a {@link StorageFaultException}
 * naming the cause, reads go on, the engine says it cannot write, and once the fault clears writes
 * resume within 5 s with no restart, every acknowledged write readable, before and after a restart,
 * no orphan files and memtables within their bound .
 */
class DiskFaultHealingTest {

    private static final long HEAL_WITHIN_MS = 5_000;
    private static final Predicate<Path> WAL = p -> p.getFileName().toString().startsWith("wal-");
    private static final Predicate<Path> SST = p -> p.getFileName().toString().contains(".sst");
    private static final Predicate<Path> MANIFEST =
            p -> p.getFileName().toString().startsWith("MANIFEST");

    @TempDir
    Path tmp;

    private long version = 1L << 40;
    private final List<String> acked = new ArrayList<>();
    private int nextKey;

    private LsmOptions options(Path dir, FaultInjectingFileIo io) {
        return LsmOptions.defaults(dir).withMemtableBytes(8192).withFileIo(io);
    }

    /** Writes the next key; records it if acknowledged. */
    private void put(LsmEngine engine) throws IOException {
        String key = String.format("key%06d", nextKey++);
        engine.apply(Entry.value(Keys.utf8(key), ++version, Keys.utf8("value-of-" + key + "-".repeat(100))));
        acked.add(key);
    }

    /** Writes until one fails (at most {@code max}); the failure. */
    private StorageFaultException putUntilFailure(LsmEngine engine, int max) {
        for (int i = 0; i < max; i++) {
            try {
                put(engine);
            } catch (StorageFaultException e) {
                return e;
            } catch (IOException e) {
                throw new AssertionError("a disk fault must surface as a StorageFaultException", e);
            }
        }
        throw new AssertionError("no write failed in " + max);
    }

    /** After the fault is healed: a write succeeds within {@link #HEAL_WITHIN_MS}. */
    private void awaitWritesResume(LsmEngine engine) {
        await().atMost(Duration.ofMillis(HEAL_WITHIN_MS))
                .pollInterval(Duration.ofMillis(20))
                .pollInSameThread()
                .ignoreException(StorageFaultException.class)
                .alias("writes resumed")
                .untilAsserted(() -> {
                    for (int i = 0; i < 200; i++) {
                        put(engine); // enough to switch and flush several memtables
                    }
                    engine.flush();
                });
    }

    private void assertAllAckedReadable(LsmEngine engine) throws IOException {
        for (String key : acked) {
            Entry e = engine.get(Keys.utf8(key));
            assertThat(e).as(key).isNotNull();
            assertThat(new String(e.value(), StandardCharsets.UTF_8)).startsWith("value-of-" + key);
        }
    }

    /** No temporary file, and exactly the manifest's tables on disk. */
    private static void assertNoOrphans(Path dir) throws IOException {
        Set<Long> listed = new HashSet<>(Manifest.read(dir).orElseThrow().liveTables());
        Set<Long> onDisk = new HashSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                String name = p.getFileName().toString();
                assertThat(name)
                        .as("temporary file left")
                        .doesNotEndWith(".tmp")
                        .doesNotContain(".idx");
                FileNames.parse(name)
                        .filter(f -> f.kind() == FileNames.Kind.SSTABLE)
                        .ifPresent(f -> onDisk.add(f.number()));
            }
        }
        assertThat(onDisk).isEqualTo(listed);
    }

    private void healAndCheck(Path dir, FaultInjectingFileIo io, LsmEngine engine) throws Exception {
        io.heal();
        awaitWritesResume(engine);
        assertThat(engine.unwritableReason()).isNull();
        assertAllAckedReadable(engine);
        engine.close();
        assertNoOrphans(dir);
        try (LsmEngine reopened = LsmEngine.open(options(dir, new FaultInjectingFileIo()))) {
            assertAllAckedReadable(reopened);
        }
    }

    /** Closes after a failed assertion without hiding it. */
    private static void closeQuietly(LsmEngine engine) {
        try {
            engine.close();
        } catch (IOException | RuntimeException e) {
            // the assertion that failed says more
        }
    }

    @Test
    void walAppendOnAFullDiskFailsAsDiskFullThenRollsAndHeals() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmEngine engine = LsmEngine.open(options(dir, io));
        try {
            for (int i = 0; i < 10; i++) {
                put(engine);
            }
            io.failAll(Op.WRITE, DiskFault.DISK_FULL, WAL);
            StorageFaultException e = putUntilFailure(engine, 1);
            assertThat(e.fault()).isEqualTo(DiskFault.DISK_FULL);
            assertThat(e.getMessage()).contains("disk full").contains("No space left on device");
            // every later write fails the same way (the new segment cannot be written either), none is lost
            assertThat(putUntilFailure(engine, 1).fault()).isEqualTo(DiskFault.DISK_FULL);
            assertThat(engine.unwritableReason()).contains("disk full");
            assertAllAckedReadable(engine); // reads go on
            healAndCheck(dir, io, engine);
        } finally {
            closeQuietly(engine);
        }
    }

    @Test
    void walFsyncErrorUnderAlwaysFailsAsIoErrorThenHeals() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmEngine engine = LsmEngine.open(options(dir, io).withWalSync(WalSyncPolicy.ALWAYS));
        try {
            put(engine);
            // the fault goes to the active segment: the spare, created on the flusher thread after open,
            // is fsynced too, and took the fault first in one CI run, so no write failed
            Path active = awaitSpareSegment(dir);
            io.failNth(Op.FORCE, 1, DiskFault.IO_ERROR, active::equals);
            StorageFaultException e = putUntilFailure(engine, 1);
            assertThat(e.fault()).isEqualTo(DiskFault.IO_ERROR);
            assertThat(e.getMessage()).contains("Input/output error");
            healAndCheck(dir, io, engine);
        } finally {
            closeQuietly(engine);
        }
    }

    @Test
    void failedPeriodicFsyncRollsToAFreshSegmentWithoutWaitingForAWrite() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmEngine engine = LsmEngine.open(options(dir, io).withWalSyncIntervalMs(20));
        try {
            Path active = awaitSpareSegment(dir);
            io.failNth(Op.FORCE, 1, DiskFault.IO_ERROR, active::equals);
            for (int i = 0; i < 5; i++) {
                put(engine); // acknowledged, not yet fsynced: the poisoned segment's memtable must reach an SSTable
            }
            await().atMost(Duration.ofMillis(HEAL_WITHIN_MS))
                    .pollInterval(Duration.ofMillis(10))
                    .until(engine::tableCount, n -> n > 0);
            assertThat(engine.tableCount())
                    .as("the poisoned segment's memtable was flushed")
                    .isEqualTo(1);
            assertThat(engine.unwritableReason()).isNull();
            healAndCheck(dir, io, engine);
        } finally {
            closeQuietly(engine);
        }
    }

    /** Waits until the spare WAL segment exists (created ahead on the flusher); the active one. */
    private static Path awaitSpareSegment(Path dir) {
        return await().atMost(Duration.ofMillis(HEAL_WITHIN_MS))
                .pollInterval(Duration.ofMillis(5))
                .alias("a spare WAL segment")
                .until(
                        () -> {
                            try (Stream<Path> files = Files.list(dir)) {
                                return files.filter(WAL).sorted().toList();
                            }
                        },
                        wals -> wals.size() == 2)
                .getFirst();
    }

    @Test
    void segmentCreationOutOfFileDescriptorsFailsTheSwitchingWrite() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmEngine engine = LsmEngine.open(options(dir, io));
        try {
            put(engine);
            awaitSpareSegment(dir);
            io.failAll(Op.CREATE, DiskFault.TOO_MANY_FILES, WAL);
            engine.flush(); // uses up the spare segment; no new one can be made
            Path active;
            try (Stream<Path> files = Files.list(dir)) {
                active = files.filter(WAL).sorted().toList().getLast();
            }
            io.failAll(Op.WRITE, DiskFault.IO_ERROR, active::equals); // poison it: the next write must switch
            assertThat(putUntilFailure(engine, 1).fault()).isEqualTo(DiskFault.IO_ERROR);
            StorageFaultException e = putUntilFailure(engine, 1);
            assertThat(e.fault()).isEqualTo(DiskFault.TOO_MANY_FILES);
            assertThat(e.getMessage()).contains("Too many open files");
            healAndCheck(dir, io, engine);
        } finally {
            closeQuietly(engine);
        }
    }

    @Test
    void sstableWritesOnAFullDiskFailWritesFastWithinTheMemtableBoundThenHeal() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmEngine engine = LsmEngine.open(options(dir, io));
        try {
            io.failAll(Op.WRITE, DiskFault.DISK_FULL, SST);
            long started = System.nanoTime();
            StorageFaultException e = putUntilFailure(engine, 10_000);
            // the stall timeout is 30 s: a failing flush answers at once instead
            assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(10_000);
            assertThat(e.fault()).isEqualTo(DiskFault.DISK_FULL);
            assertThat(e.getMessage()).contains("flush");
            assertThat(engine.memtableBytes()).isLessThanOrEqualTo(2 * 8192 + 4096);
            assertThat(engine.unwritableReason()).contains("disk full");
            assertThat(putUntilFailure(engine, 1).fault()).isEqualTo(DiskFault.DISK_FULL);
            assertAllAckedReadable(engine);
            healAndCheck(dir, io, engine);
        } finally {
            closeQuietly(engine);
        }
    }

    @Test
    void manifestPublishFailuresLeaveNoOrphanTables() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        LsmEngine engine = LsmEngine.open(options(dir, io));
        try {
            io.failAll(Op.RENAME, DiskFault.IO_ERROR, MANIFEST);
            StorageFaultException e = putUntilFailure(engine, 10_000);
            assertThat(e.fault()).isEqualTo(DiskFault.IO_ERROR);
            // several publish retries
            await().atMost(Duration.ofMillis(HEAL_WITHIN_MS))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> io.count(Op.RENAME), n -> n > 2);
            assertThat(io.count(Op.RENAME)).isGreaterThan(2);
            healAndCheck(dir, io, engine);
        } finally {
            closeQuietly(engine);
        }
    }

    @Test
    void aFailedCompactionPublishDeletesItsOutput() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        try (LsmEngine engine = LsmEngine.open(options(dir, io))) {
            for (int round = 0; round < 3; round++) {
                put(engine);
                engine.flush();
            }
            io.failNth(Op.RENAME, 1, DiskFault.IO_ERROR, MANIFEST);
            assertThatThrownBy(engine::compactAll).hasMessageContaining("Input/output error");
            assertNoOrphans(dir);
            assertThat(engine.compactAll()).isEqualTo(3);
            assertAllAckedReadable(engine);
        }
        assertNoOrphans(dir);
    }
}
