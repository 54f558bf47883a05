package io.ringbase.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.node.Engines;
import io.ringbase.storage.EngineKind;
import io.ringbase.storage.Entry;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a replica reports after a write ({@link LocalReplica#applyChecked}, {@link LocalReplica#tryApplyChecked}):
 * {@link Replica#writeResult} of the written entry against the one held afterwards, on our engine and on
 * the in-memory test engine.
 */
class LocalReplicaWriteResultTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eachCaseOfTheResultOnOurEngine() throws Exception {
        try (ManagedEngine engine = Engines.open(EngineKind.LSM, LsmOptions.defaults(dir))) {
            eachCase(engine);
            // the inline path (a write the engine takes without waiting) reports the same way
            assertThat(LocalReplica.tryApplyChecked(engine, Entry.value(KEY, 9, bytes("e"))))
                    .isEqualTo(10);
            assertThat(LocalReplica.tryApplyChecked(engine, Entry.value(KEY, 12, bytes("e"))))
                    .isEqualTo(12);
        }
    }

    /** The test engine takes no write without waiting ({@code tryApply} declines), so only {@code applyChecked}. */
    @Test
    void eachCaseOfTheResultOnTheInMemoryEngine() throws Exception {
        eachCase(new InMemoryEngine());
    }

    private static void eachCase(StorageEngine engine) throws Exception {
        // nothing held before: the write is what is held
        assertThat(LocalReplica.applyChecked(engine, Entry.value(KEY, 7, bytes("b"))))
                .isEqualTo(7);
        // an older write loses to the held version, which it reports
        assertThat(LocalReplica.applyChecked(engine, Entry.value(KEY, 5, bytes("z"))))
                .isEqualTo(7);
        // a newer write wins
        assertThat(LocalReplica.applyChecked(engine, Entry.value(KEY, 9, bytes("b"))))
                .isEqualTo(9);
        // the same version, a smaller value: the held one wins the tie, so a rewrite must pass 9
        assertThat(LocalReplica.applyChecked(engine, Entry.value(KEY, 9, bytes("a"))))
                .isEqualTo(10);
        // the same version, a greater value: it wins the tie
        assertThat(LocalReplica.applyChecked(engine, Entry.value(KEY, 9, bytes("c"))))
                .isEqualTo(9);
        // the very same entry again: it is what is held
        assertThat(LocalReplica.applyChecked(engine, Entry.value(KEY, 9, bytes("c"))))
                .isEqualTo(9);
        // a tombstone wins a tie against a value, and a value then loses to it
        assertThat(LocalReplica.applyChecked(engine, Entry.tombstone(KEY, 9))).isEqualTo(9);
        assertThat(LocalReplica.applyChecked(engine, Entry.value(KEY, 9, bytes("d"))))
                .isEqualTo(10);
        assertThat(engine.get(KEY).value()).isNull();
    }

    /**
     * Random writes of a few keys, with versions from a narrow range so that ties are common, values,
     * tombstones and TTLs mixed: each result equals {@link Replica#writeResult} against the whole entry
     * the engine holds afterwards (how the result was computed before the cheaper version check).
     */
    @Test
    void randomWritesReportWhatTheWholeHeldEntrySays() throws Exception {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        try (ManagedEngine engine = Engines.open(EngineKind.LSM, LsmOptions.defaults(dir))) {
            for (int i = 0; i < 5_000; i++) {
                byte[] key = bytes("key" + random.nextInt(8));
                long version = 100L + random.nextInt(20);
                long expires = random.nextInt(4) == 0 ? 1_000 + random.nextInt(3) : Entry.NO_EXPIRY;
                Entry written = random.nextInt(5) == 0
                        ? Entry.tombstone(key, version)
                        : new Entry(key, version, expires, new byte[] {(byte) random.nextInt(3), 1});
                long result = random.nextBoolean()
                        ? LocalReplica.applyChecked(engine, written)
                        : LocalReplica.tryApplyChecked(engine, written);
                assertThat(result)
                        .as("our engine takes a small write without waiting")
                        .isNotEqualTo(LocalReplica.NOT_APPLIED);
                assertThat(result)
                        .as("write %d %s (seed %d)", i, written, seed)
                        .isEqualTo(Replica.writeResult(written, engine.get(key)));
            }
        }
    }
}
