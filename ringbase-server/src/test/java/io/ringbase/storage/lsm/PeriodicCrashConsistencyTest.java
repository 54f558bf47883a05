package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DiskFault;
import io.ringbase.storage.Entry;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Event;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import io.ringbase.storage.lsm.wal.WalRecoveryMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Crash consistency under {@code --wal-sync periodic}, the default (and {@code always}), in the manner of ALICE (Pillai et
 * al., OSDI 2014): a workload's file operations (writes across many WAL segments, switches, flushes, a
 * compaction, a WAL fsync that fails, a close, a recovery, more writes) are recorded through the
 * {@link FaultInjectingFileIo} seam. For each I/O boundary several disks a power loss there could leave
 * are built: fsynced data under fsynced names always survives, and of the writes not yet fsynced (in
 * any file, so the OS's writeback reorders them across WAL segments) any subset survives, a dropped
 * one leaving a hole of zeros. Data written before a failed fsync is never fsynced after it (the
 * segment is poisoned), so it stays in the subset that may be lost.
 *
 * <p>Under {@code periodic} an acknowledged write may be lost, but recovery must keep a prefix of the
 * write history: the state read back is the state after the first {@code c} writes for some {@code c}
 * (a write that failed may count or not), never a later write without an earlier one; and {@code c}
 * covers at least every write made before the last completed {@code flush()} or {@code close()}, and
 * under {@code always} every acknowledged write. Where damage in the middle of a segment makes
 * the default recovery mode refuse to start, the check is repeated with
 * {@code --wal-recovery=truncate-after-corruption}. Bounded: at most {@value #MAX_POINTS} boundaries
 * times {@value #VARIANTS} disks, {@value #TIME_BUDGET_S} s.
 */
class PeriodicCrashConsistencyTest {

    private static final int MAX_POINTS = 100;
    private static final int VARIANTS = 4;
    private static final long TIME_BUDGET_S = 40;

    @TempDir
    Path tmp;

    /**
     * One write of the workload, in WAL order (one thread writes); {@code ackedAt} is
     * {@link Long#MAX_VALUE} for a write that failed, which may or may not have reached the WAL.
     */
    private record Write(String key, String value, long startedAt, long ackedAt) {
        boolean failed() {
            return ackedAt == Long.MAX_VALUE;
        }
    }

    private final List<Write> ops = new ArrayList<>();
    /** I/O boundaries at which every write begun before them is durable (a flush or close returned). */
    private final List<long[]> durablePoints = new ArrayList<>(); // {boundary, writes before it}

    private long version = 1L << 40;

    private WalSyncPolicy policy;

    @ParameterizedTest
    @EnumSource(WalSyncPolicy.class)
    @Timeout(120)
    void everyCrashStateRecoversAPrefixOfTheWriteHistory(WalSyncPolicy policy) throws Exception {
        this.policy = policy;
        Path dir = tmp.resolve("d");
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        io.record(true);
        LsmOptions options = LsmOptions.defaults(dir)
                .withWalSync(policy)
                .withWalSyncIntervalMs(1)
                .withMemtableBytes(4096)
                .withFileIo(io);
        LsmEngine engine = LsmEngine.open(options);
        try {
            for (int round = 0; round < 3; round++) {
                if (round == 1) {
                    // a periodic fsync of a WAL segment fails: what it should have made durable may be lost
                    io.failNth(
                            Op.FORCE,
                            3,
                            DiskFault.IO_ERROR,
                            p -> p.getFileName().toString().startsWith("wal-"));
                }
                for (int i = 0; i < 40; i++) {
                    write(engine, io, "k" + (i % 20), "r" + round + "-" + i + "-" + "x".repeat(60));
                }
                write(engine, io, "k" + round, null); // a delete
                flush(engine);
                durable(io);
            }
            engine.compactAll();
            for (int i = 0; i < 30; i++) {
                write(engine, io, "k" + (i % 7), "late-" + i + "-" + "y".repeat(80));
            }
        } finally {
            engine.close();
            durable(io);
        }
        engine = LsmEngine.open(options); // recovery is part of the workload
        try {
            for (int i = 0; i < 40; i++) {
                write(engine, io, "k" + (i % 11), "after-restart-" + i + "-" + "z".repeat(70));
            }
            write(engine, io, "k7", null);
        } finally {
            engine.close();
            durable(io);
        }
        io.record(false);

        List<Event> events = io.events();
        int n = events.size();
        int step = Math.max(1, n / MAX_POINTS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIME_BUDGET_S);
        int checked = 0;
        for (int k = 0; k <= n && System.nanoTime() < deadline; k += step) {
            for (int v = 0; v < VARIANTS; v++) {
                Random keep = new Random(31L * k + v);
                Path image = tmp.resolve("crash-" + k + "-" + v);
                build(events.subList(0, k), dir, image, v == 0 ? null : keep);
                check(image, k, v);
                checked++;
            }
        }
        assertThat(checked).as("crash states checked of " + n + " boundaries").isGreaterThanOrEqualTo(Math.min(80, n));
    }

    private void write(LsmEngine engine, FaultInjectingFileIo io, String key, String value) {
        long started = io.events().size();
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        try {
            engine.apply(
                    value == null
                            ? Entry.tombstone(k, ++version)
                            : Entry.value(k, ++version, value.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            ops.add(new Write(key, value, started, Long.MAX_VALUE)); // its record may be in the WAL, or not
            return;
        }
        ops.add(new Write(key, value, started, io.events().size()));
    }

    /** {@link LsmEngine#flush()}, again if the injected fault hit the fsync of a segment it created. */
    private static void flush(LsmEngine engine) throws IOException {
        try {
            engine.flush();
        } catch (IOException e) {
            engine.flush(); // the fault fires once
        }
    }

    private void durable(FaultInjectingFileIo io) {
        durablePoints.add(new long[] {io.events().size(), ops.size()});
    }

    /** A file's writes in order, and how many of them the last fsync covered. */
    private static final class Inode {
        final List<Event> writes = new ArrayList<>();
        int synced;
    }

    /**
     * The disk after a power loss once {@code events} happened: fsynced data under fsynced names, plus,
     * with {@code keep}, a random subset of the writes not fsynced (a dropped write leaves zeros).
     */
    private static void build(List<Event> events, Path dir, Path image, Random keep) throws IOException {
        Map<Path, Inode> names = new HashMap<>();
        Map<Path, Inode> durable = new HashMap<>();
        for (Event e : events) {
            switch (e.op()) {
                case CREATE -> names.put(e.path(), new Inode());
                case WRITE -> {
                    Inode f = names.get(e.path());
                    if (f != null) {
                        f.writes.add(e);
                    }
                }
                case FORCE -> {
                    Inode f = names.get(e.path());
                    if (f != null) {
                        f.synced = f.writes.size();
                    }
                }
                case RENAME -> names.put(e.target(), names.remove(e.path()));
                case DELETE -> names.remove(e.path());
                case SYNC_DIR -> {
                    durable.keySet().removeIf(p -> p.getParent().equals(e.path()));
                    names.forEach((p, f) -> {
                        if (p.getParent().equals(e.path())) {
                            durable.put(p, f);
                        }
                    });
                }
                case MKDIR, LINK -> {} // the image's directory exists; links are made by snapshots only
            }
        }
        Files.createDirectories(image);
        for (Map.Entry<Path, Inode> f : durable.entrySet()) {
            Inode inode = f.getValue();
            byte[] bytes = new byte[0];
            for (int i = 0; i < inode.writes.size(); i++) {
                if (i >= inode.synced && (keep == null || !keep.nextBoolean())) {
                    continue;
                }
                Event w = inode.writes.get(i);
                if (w.position() < 0) {
                    bytes = new byte[0];
                    continue;
                }
                int end = (int) w.position() + w.data().length;
                if (bytes.length < end) {
                    bytes = Arrays.copyOf(bytes, end);
                }
                System.arraycopy(w.data(), 0, bytes, (int) w.position(), w.data().length);
            }
            Files.write(image.resolve(dir.relativize(f.getKey()).toString()), bytes);
        }
    }

    private void check(Path image, int k, int variant) throws IOException {
        Map<String, String> found;
        try {
            found = readAll(LsmOptions.defaults(image));
        } catch (CorruptionException refused) {
            // damage in the middle of a segment: the default mode refuses and names the flag to go on with
            assertThat(refused).hasMessageContaining("--wal-recovery=truncate-after-corruption");
            found = readAll(LsmOptions.defaults(image).withWalRecovery(WalRecoveryMode.TRUNCATE_AFTER_CORRUPTION));
        }
        Map<String, String> read = found;
        int begun = 0;
        for (Write op : ops) {
            if (op.startedAt() <= k) {
                begun++;
            }
        }
        int mustHave = 0;
        for (long[] p : durablePoints) {
            if (p[0] <= k) {
                mustHave = Math.max(mustHave, (int) p[1]);
            }
        }
        if (policy == WalSyncPolicy.ALWAYS) { // every acknowledged write was fsynced first
            for (int i = 0; i < ops.size(); i++) {
                if (ops.get(i).ackedAt() <= k) {
                    mustHave = Math.max(mustHave, i + 1);
                }
            }
        }
        // the states after each prefix; a failed write in it may have been kept or not
        List<Map<String, String>> states = new ArrayList<>(List.of(new HashMap<>()));
        List<Integer> matches = new ArrayList<>();
        for (int c = 0; c <= begun; c++) {
            if (c > 0) {
                Write op = ops.get(c - 1);
                List<Map<String, String>> next = new ArrayList<>();
                for (Map<String, String> state : states) {
                    if (op.failed()) {
                        next.add(new HashMap<>(state));
                    }
                    state.put(op.key(), op.value());
                    next.add(state);
                }
                states = new ArrayList<>(new java.util.LinkedHashSet<>(next)); // equal states once
            }
            if (c >= mustHave && states.stream().anyMatch(state -> sameState(state, read))) {
                matches.add(c);
            }
        }
        assertThat(matches)
                .as(
                        "%s: crash at I/O boundary %d (disk %d): read %s is the state after no prefix of the %d writes"
                                + " begun, of at least %d",
                        policy, k, variant, new java.util.TreeMap<>(read), begun, mustHave)
                .isNotEmpty();
    }

    private static boolean sameState(Map<String, String> state, Map<String, String> read) {
        TreeSet<String> keys = new TreeSet<>(state.keySet());
        keys.addAll(read.keySet());
        for (String key : keys) {
            if (!java.util.Objects.equals(state.get(key), read.get(key))) {
                return false;
            }
        }
        return true;
    }

    /** Every live key and its value; a tombstone reads as absent. */
    private static Map<String, String> readAll(LsmOptions options) throws IOException {
        Map<String, String> out = new HashMap<>();
        try (LsmEngine recovered = LsmEngine.open(options)) {
            for (int i = 0; i < 20; i++) {
                String key = "k" + i;
                Entry found = recovered.get(key.getBytes(StandardCharsets.UTF_8));
                if (found != null && !found.isTombstone()) {
                    out.put(key, new String(found.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }
}
