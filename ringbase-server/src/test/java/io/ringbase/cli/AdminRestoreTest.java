package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code ringbase admin restore}: a verified swap of a stopped node's data directory for a snapshot. */
@Timeout(30)
class AdminRestoreTest {

    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A data directory with keys k0..k99 in a snapshot "s1" and, after it, "later" and k0 deleted. */
    private Path dataWithSnapshot() throws IOException {
        Path data = tmp.resolve("data");
        try (LsmEngine e = LsmEngine.open(LsmOptions.defaults(data))) {
            for (int i = 0; i < 100; i++) {
                e.apply(new Entry(b("k" + i), i + 1, 0, b("v" + i)));
            }
            e.snapshot("s1");
            e.apply(new Entry(b("later"), 1_000, 0, b("x")));
            e.apply(Entry.tombstone(b("k0"), 1_001));
        }
        return data;
    }

    @Test
    void aSnapshotInTheDataDirectoryReplacesItsDataAndTheOldDataIsKept() throws Exception {
        Path data = dataWithSnapshot();

        CommandRun r = CommandRun.of("admin", "restore", "--data-dir", data.toString(), "--snapshot", "s1");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("restored 1 SSTables").contains("100 live entries read back");
        try (LsmEngine e = LsmEngine.open(LsmOptions.defaults(data))) {
            assertThat(e.get(b("k0")).value()).isEqualTo(b("v0"));
            assertThat(e.get(b("k99")).value()).isEqualTo(b("v99"));
            assertThat(e.get(b("later"))).isNull();
        }
        List<Path> kept = siblings("data.before-restore-");
        assertThat(kept).hasSize(1);
        try (LsmEngine old = LsmEngine.open(LsmOptions.defaults(kept.getFirst()))) {
            assertThat(old.get(b("later")).value()).isEqualTo(b("x"));
            assertThat(old.get(b("k0")).isTombstone()).isTrue();
        }
        assertThat(siblings("data.restoring")).isEmpty();
    }

    @Test
    void aDamagedSnapshotChangesNothing() throws Exception {
        Path data = dataWithSnapshot();
        Path copy = tmp.resolve("backup");
        Files.createDirectories(copy);
        Path table = null;
        try (Stream<Path> files = Files.list(data.resolve("snapshots/s1"))) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
                if (f.getFileName().toString().endsWith(".sst")) {
                    table = copy.resolve(f.getFileName());
                }
            }
        }
        try (FileChannel ch = FileChannel.open(java.util.Objects.requireNonNull(table), StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0x5a, 0x5a, 0x5a, 0x5a}), 40); // inside the first block
        }
        List<String> before = listing(data);

        CommandRun r = CommandRun.of("admin", "restore", "--data-dir", data.toString(), "--from", copy.toString());

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("is damaged, nothing was changed").contains("checksum mismatch");
        assertThat(listing(data)).isEqualTo(before);
        assertThat(siblings("data.restoring")).isEmpty();
        assertThat(siblings("data.before-restore-")).isEmpty();
    }

    @Test
    void aRunningNodeOrAnIncompleteSnapshotIsRefused() throws Exception {
        Path data = dataWithSnapshot();
        try (LsmEngine running = LsmEngine.open(LsmOptions.defaults(data))) {
            CommandRun r = CommandRun.of("admin", "restore", "--data-dir", data.toString(), "--snapshot", "s1");
            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.err()).contains("a node is running on");
            assertThat(running.get(b("later")).value()).isEqualTo(b("x"));
        }
        try (Stream<Path> files = Files.list(data.resolve("snapshots/s1"))) {
            for (Path f : files.toList()) {
                if (f.getFileName().toString().endsWith(".sst")) {
                    Files.delete(f);
                }
            }
        }
        CommandRun r = CommandRun.of("admin", "restore", "--data-dir", data.toString(), "--snapshot", "s1");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("is not a complete snapshot");
        assertThat(CommandRun.of("admin", "restore", "--data-dir", data.toString())
                        .exitCode())
                .isEqualTo(2);
    }

    private List<Path> siblings(String prefix) throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p) + " " + (Files.isRegularFile(p) ? sizeOf(p) : -1))
                    .sorted()
                    .toList();
        }
    }

    private static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
