package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash consistency in the spirit of ALICE (Pillai et al., OSDI 2014) and CrashMonkey (Mohan et al.,
 * OSDI 2018): the file operations of a workload (writes, memtable switches, flushes, a compaction,
 * deletes, a close, a recovery, more writes) are recorded through the {@link FaultInjectingFileIo}
 * seam; for each I/O boundary the disk a power loss there would leave is built, in which only fsynced
 * file data and fsynced directory entries survive (unsynced writes, creates, renames and deletes are
 * dropped); the engine must open it, every acknowledged write (WAL policy {@code always}: fsynced
 * before the acknowledgement) must be readable, and nothing acknowledged as deleted may come back.
 * Bounded: at most {@value #MAX_STATES} states, {@value #TIME_BUDGET_S} s.
 */
class CrashConsistencyTest {

    private static final int MAX_STATES = 160;
    private static final long TIME_BUDGET_S = 40;

    @TempDir
    Path tmp;

    /** One acknowledged or attempted operation of the workload. */
    private record Op(String key, String value, long startedAt, long ackedAt) {}

    /** A file's contents as written (volatile) and as last fsynced (durable). */
    private static final class Inode {
        byte[] written = new byte[0];
        byte[] durable = new byte[0];
    }

    @Test
    void everyCrashPointRecoversEveryAcknowledgedWriteAndNoDeletedKey() throws Exception {
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        io.record(true);
        LsmOptions options = LsmOptions.defaults(dir)
                .withWalSync(WalSyncPolicy.ALWAYS)
                .withMemtableBytes(4096)
                .withFileIo(io);
        List<Op> ops = new ArrayList<>();
        long[] version = {1L << 40};
        LsmEngine engine = LsmEngine.open(options);
        try {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 30; i++) {
                    write(engine, io, ops, version, "k" + (i % 20), "r" + round + "-" + i + "-" + "x".repeat(60));
                }
                write(engine, io, ops, version, "k" + round, null); // a delete
                engine.flush();
            }
            engine.compactAll();
        } finally {
            engine.close();
        }
        engine = LsmEngine.open(options); // recovery is part of the workload
        try {
            for (int i = 0; i < 10; i++) {
                write(engine, io, ops, version, "k" + (i + 5), "after-restart-" + i);
            }
            write(engine, io, ops, version, "k7", null);
        } finally {
            engine.close();
        }
        io.record(false);

        List<Event> events = io.events();
        int n = events.size();
        int step = Math.max(1, n / MAX_STATES);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIME_BUDGET_S);
        int checked = 0;
        for (int k = 0; k <= n && System.nanoTime() < deadline; k += step) {
            Path image = tmp.resolve("crash-" + k);
            build(events.subList(0, k), dir, image);
            check(image, ops, k);
            checked++;
        }
        assertThat(checked).as("crash states checked of " + n + " boundaries").isGreaterThanOrEqualTo(Math.min(40, n));
    }

    private static void write(
            LsmEngine engine, FaultInjectingFileIo io, List<Op> ops, long[] version, String key, String value)
            throws IOException {
        long started = io.events().size();
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        engine.apply(
                value == null
                        ? Entry.tombstone(k, ++version[0])
                        : Entry.value(k, ++version[0], value.getBytes(StandardCharsets.UTF_8)));
        ops.add(new Op(key, value, started, io.events().size()));
    }

    /** The disk after a power loss once {@code events} happened: fsynced data under fsynced names only. */
    private static void build(List<Event> events, Path dir, Path image) throws IOException {
        Map<Path, Inode> names = new HashMap<>(); // directory entries as the OS sees them
        Map<Path, Inode> durable = new HashMap<>(); // directory entries that survive
        for (Event e : events) {
            switch (e.op()) {
                case CREATE -> names.put(e.path(), new Inode());
                case WRITE -> {
                    Inode f = names.get(e.path());
                    if (f == null) {
                        continue; // written through a channel whose name is gone: not reachable after a crash
                    }
                    if (e.position() < 0) {
                        f.written = new byte[0]; // truncation on open
                    } else {
                        int end = (int) e.position() + e.data().length;
                        if (f.written.length < end) {
                            f.written = Arrays.copyOf(f.written, end);
                        }
                        System.arraycopy(e.data(), 0, f.written, (int) e.position(), e.data().length);
                    }
                }
                case FORCE -> {
                    Inode f = names.get(e.path());
                    if (f != null) {
                        f.durable = f.written.clone();
                    }
                }
                case RENAME -> names.put(e.target(), names.remove(e.path()));
                case DELETE -> names.remove(e.path());
                case MKDIR, LINK -> {} // the image's directory exists; links are made by snapshots only
                case SYNC_DIR -> {
                    durable.keySet().removeIf(p -> p.getParent().equals(e.path()));
                    names.forEach((p, f) -> {
                        if (p.getParent().equals(e.path())) {
                            durable.put(p, f);
                        }
                    });
                }
            }
        }
        Files.createDirectories(image);
        for (Map.Entry<Path, Inode> f : durable.entrySet()) {
            Path rel = dir.relativize(f.getKey());
            Files.write(image.resolve(rel.toString()), f.getValue().durable);
        }
    }

    private static void check(Path image, List<Op> ops, int k) throws IOException {
        Map<String, List<Op>> byKey = new HashMap<>();
        for (Op op : ops) {
            byKey.computeIfAbsent(op.key(), x -> new ArrayList<>()).add(op);
        }
        try (LsmEngine recovered = LsmEngine.open(LsmOptions.defaults(image))) {
            for (Map.Entry<String, List<Op>> e : byKey.entrySet()) {
                List<Op> history = e.getValue();
                // allowed: the last operation acknowledged by k, or one begun by k and acknowledged later
                List<String> allowed = new ArrayList<>();
                boolean anyAcked = false;
                for (Op op : history) {
                    if (op.ackedAt() <= k) {
                        allowed.clear();
                        allowed.add(op.value());
                        anyAcked = true;
                    } else if (op.startedAt() <= k) {
                        allowed.add(op.value());
                    }
                }
                if (!anyAcked) {
                    continue; // nothing acknowledged yet for this key
                }
                Entry found = recovered.get(e.getKey().getBytes(StandardCharsets.UTF_8));
                String value =
                        found == null || found.isTombstone() ? null : new String(found.value(), StandardCharsets.UTF_8);
                assertThat(allowed)
                        .as("crash at I/O boundary %d: key %s read %s", k, e.getKey(), value)
                        .contains(value);
            }
        }
    }
}
