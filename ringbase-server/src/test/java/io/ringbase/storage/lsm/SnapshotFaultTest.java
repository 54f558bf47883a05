package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.DiskFault;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.Snapshot;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk fault injected through the file seam while a snapshot is taken (its manifest, a link) fails
 * the snapshot with that fault and leaves no half snapshot behind; the same name then works once the
 * fault is gone, and the engine goes on writing.
 */
class SnapshotFaultTest {

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    private static final Predicate<Path> IN_SNAPSHOT =
            p -> p.getParent() != null && p.getParent().getFileName().toString().equals("s1");

    private void failingSnapshotLeavesNothing(Op op) throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path dir = tmp.resolve(op.name());
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            engine.apply(Entry.value(Keys.utf8("k"), ++version, Keys.utf8("v")));
            engine.flush();
            io.failNth(op, 1, DiskFault.IO_ERROR, IN_SNAPSHOT);
            Path target = DataDirectory.snapshot(dir, "s1");
            assertThatThrownBy(() -> engine.snapshot("s1"))
                    .isInstanceOf(IOException.class)
                    .satisfies(e -> assertThat(DiskFault.classify(e)).isEqualTo(DiskFault.IO_ERROR));
            assertThat(target).as("no half snapshot").doesNotExist();

            engine.apply(Entry.value(Keys.utf8("k2"), ++version, Keys.utf8("v2")));
            Snapshot done = engine.snapshot("s1");
            assertThat(done.sstables()).isEqualTo(2);
        }
        try (LsmEngine fromSnapshot = LsmEngine.open(LsmOptions.defaults(DataDirectory.snapshot(dir, "s1")))) {
            assertThat(fromSnapshot.get(Keys.utf8("k2"))).isNotNull();
        }
    }

    @Test
    void aFailedManifestFsyncFailsTheSnapshotAndLeavesNoDirectory() throws IOException {
        failingSnapshotLeavesNothing(Op.FORCE);
    }

    @Test
    void aFailedLinkFailsTheSnapshotAndLeavesNoDirectory() throws IOException {
        failingSnapshotLeavesNothing(Op.LINK);
    }
}
