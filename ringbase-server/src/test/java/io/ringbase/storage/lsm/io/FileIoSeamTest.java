package io.ringbase.storage.lsm.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.DiskFault;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.sstable.SstableWriter;
import io.ringbase.storage.lsm.wal.WalWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine's files go through {@link FileIo}, and the faults a test injects there reach its callers. */
class FileIoSeamTest {

    @TempDir
    Path tmp;

    @Test
    void everyKindOfFileOperationOfTheEngineGoesThroughTheSeam() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path dir = tmp.resolve("d");
        long version = 1L << 40;
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            for (int round = 0; round < 2; round++) {
                engine.apply(Entry.value(Keys.utf8("k" + round), ++version, Keys.utf8("v")));
                engine.flush();
            }
            engine.compactAll();
            engine.snapshot("seam"); // links and directories
        }
        for (Op op : Op.values()) {
            assertThat(io.count(op)).as(op.name()).isPositive();
        }
    }

    @Test
    void theNthWalWriteFailsWithTheInjectedErrnoMessage() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path file = tmp.resolve("wal-000001.log");
        try (WalWriter w =
                WalWriter.create(io, file, WalSyncPolicy.ALWAYS, 1000, new io.ringbase.storage.lsm.wal.WalStats())) {
            io.failNth(Op.WRITE, 2, DiskFault.DISK_FULL);
            w.append(Entry.value(Keys.utf8("a"), 1, Keys.utf8("1")));
            assertThatThrownBy(() -> w.append(Entry.value(Keys.utf8("b"), 2, Keys.utf8("2"))))
                    .isInstanceOf(IOException.class)
                    .satisfies(e -> assertThat(DiskFault.classify(e)).isEqualTo(DiskFault.DISK_FULL));
        } catch (IOException closeFailure) {
            assertThat(DiskFault.classify(closeFailure)).isEqualTo(DiskFault.DISK_FULL); // poisoned: close reports it
        }
    }

    @Test
    void aSegmentWhoseCreationFailsIsNotLeftBehind() {
        FaultInjectingFileIo io = new FaultInjectingFileIo().failNth(Op.FORCE, 1, DiskFault.IO_ERROR);
        Path file = tmp.resolve("wal-000001.log");
        assertThatThrownBy(() -> WalWriter.create(
                        io, file, WalSyncPolicy.PERIODIC, 1000, new io.ringbase.storage.lsm.wal.WalStats()))
                .satisfies(e -> assertThat(DiskFault.classify(e)).isEqualTo(DiskFault.IO_ERROR));
        assertThat(file).doesNotExist();
    }

    @Test
    void aFailedSstableWriteLeavesNoFile() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo().failAll(Op.FORCE, DiskFault.DISK_FULL);
        Path file = tmp.resolve("000007.sst.tmp");
        try (SstableWriter w = new SstableWriter(io, file, 1)) {
            w.add(Entry.value(Keys.utf8("a"), 1, Keys.utf8("1")));
            assertThatThrownBy(w::finish).hasMessageContaining("No space left on device");
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.toList()).isEmpty();
        }
    }

    @Test
    void aFailedManifestRenameLeavesTheOldManifestAndNoTemporary() throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path dir = tmp.resolve("d");
        long version = 1L << 40;
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            engine.apply(Entry.value(Keys.utf8("a"), ++version, Keys.utf8("1")));
            byte[] before = Files.readAllBytes(FileNames.manifest(dir));
            io.failNth(
                    Op.RENAME,
                    1,
                    DiskFault.IO_ERROR,
                    p -> p.getFileName().toString().startsWith("MANIFEST"));
            io.failNth(
                    Op.RENAME,
                    2,
                    DiskFault.IO_ERROR,
                    p -> p.getFileName().toString().startsWith("MANIFEST"));
            try {
                engine.flush(); // may fail fast with the flush's cause while the flusher retries
            } catch (io.ringbase.storage.StorageFaultException e) {
                assertThat(e.fault()).isEqualTo(DiskFault.IO_ERROR);
            }
            // the flusher retries by itself; the flush completes once the faults are used up. Wait for the
            // table to be published too, not only for the renamed manifest: until then the flush still
            // counts as failing, and close() would report that failure
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> !java.util.Arrays.equals(Files.readAllBytes(FileNames.manifest(dir)), before)
                            && engine.tableCount() > 0);
            assertThat(Files.readAllBytes(FileNames.manifest(dir))).isNotEqualTo(before);
            assertThat(FileNames.manifestTmp(dir)).doesNotExist();
        }
    }
}
