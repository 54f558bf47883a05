package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Event;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import io.ringbase.storage.lsm.manifest.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every directory the engine makes (a new data directory and its parents, {@code quarantine/},
 * {@code snapshots/} and a snapshot's own) is followed by an fsync of the directory that holds it, and
 * every entry made in it by an fsync of the directory itself, as recorded through the file seam: without
 * them ext4 or XFS may lose the directory, and the fsynced files in it, at a power loss.
 */
class DirectoryFsyncTest {

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    /** Index of the first event of {@code op} on {@code path} at or after {@code from}, or -1. */
    private static int indexOf(List<Event> events, Op op, Path path, int from) {
        for (int i = Math.max(0, from); i < events.size(); i++) {
            if (events.get(i).op() == op && events.get(i).path().equals(path)) {
                return i;
            }
        }
        return -1;
    }

    /** Asserts that {@code dir} was created and its parent fsynced after. */
    private static void assertCreatedDurably(List<Event> events, Path dir) {
        int made = indexOf(events, Op.MKDIR, dir, 0);
        assertThat(made).as("mkdir " + dir).isNotNegative();
        assertThat(indexOf(events, Op.SYNC_DIR, dir.getParent(), made))
                .as("fsync of " + dir.getParent() + " after mkdir " + dir.getFileName())
                .isGreaterThan(made);
    }

    @Test
    void aNewDataDirectoryAndItsMissingParentsAreFsyncedInTheirParents() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        io.record(true);
        Path dir = tmp.toAbsolutePath().resolve("new").resolve("data");
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            engine.apply(Entry.value(Keys.utf8("k"), ++version, Keys.utf8("v")));
        }
        List<Event> events = io.events();
        assertCreatedDurably(events, dir.getParent());
        assertCreatedDurably(events, dir);
    }

    @Test
    void snapshotDirectoriesAndLinksAreFsynced() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path dir = tmp.toAbsolutePath().resolve("d");
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            engine.apply(Entry.value(Keys.utf8("k"), ++version, Keys.utf8("v")));
            io.record(true);
            engine.snapshot("s1");
        }
        List<Event> events = io.events();
        Path snapshots = dir.resolve(DataDirectory.SNAPSHOTS);
        Path s1 = snapshots.resolve("s1");
        assertCreatedDurably(events, snapshots);
        assertCreatedDurably(events, s1);
        int link = -1;
        for (int i = 0; i < events.size() && link < 0; i++) {
            if (events.get(i).op() == Op.LINK
                    && events.get(i).path().getParent().equals(s1)) {
                link = i;
            }
        }
        assertThat(link).as("a table linked into the snapshot through the seam").isNotNegative();
        assertThat(indexOf(events, Op.SYNC_DIR, s1, link))
                .as("fsync of the snapshot after its links")
                .isPositive();
        int manifest = indexOf(events, Op.RENAME, FileNames.manifestTmp(s1), 0);
        assertThat(manifest).as("the snapshot's manifest goes through the seam").isGreaterThan(link);
        assertThat(indexOf(events, Op.SYNC_DIR, snapshots, manifest))
                .as("fsync of snapshots/ once the snapshot is complete")
                .isGreaterThan(manifest);
    }

    @Test
    void quarantineDirectoryAndTheMovedTableAreFsynced() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path dir = tmp.toAbsolutePath().resolve("d");
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withFileIo(io))) {
            for (String k : new String[] {"a", "b"}) {
                engine.apply(Entry.value(Keys.utf8(k), ++version, Keys.utf8("value-" + k)));
                engine.flush();
            }
            Path damaged = engine.liveTables().getFirst().path();
            try (FileChannel ch = FileChannel.open(damaged, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                ch.read(b, 0);
                b.put(0, (byte) (b.get(0) ^ 0x5A)).position(0);
                ch.write(b, 0); // the first entry's checksum, in place
            }
            io.record(true);
            assertThatThrownBy(engine::compactAll).isInstanceOf(CorruptionException.class);
            assertThat(engine.stats().quarantinedTables()).isEqualTo(1);
            List<Event> events = io.events();
            Path quarantine = dir.resolve(FileNames.QUARANTINE);
            assertCreatedDurably(events, quarantine);
            int moved = indexOf(events, Op.RENAME, damaged, 0);
            assertThat(moved).isPositive();
            int inQuarantine = indexOf(events, Op.SYNC_DIR, quarantine, moved);
            assertThat(inQuarantine).as("fsync of quarantine/ after the move").isGreaterThan(moved);
            assertThat(indexOf(events, Op.SYNC_DIR, dir, inQuarantine))
                    .as("then of the data directory")
                    .isGreaterThan(inQuarantine);
        }
    }
}
