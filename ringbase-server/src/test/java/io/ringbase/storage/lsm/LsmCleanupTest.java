package io.ringbase.storage.lsm;

import static io.ringbase.storage.lsm.LsmEngineTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.hash.XxHash64;
import io.ringbase.storage.Entry;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.testing.MemoryTempDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link LsmEngine#cleanup} promises beyond the contract both engines share
 * ({@code io.ringbase.storage.EngineCleanupPropertiesTest}): a crash in the middle of one leaves the old
 * tables, a crash after it the new one; reads and writes go on while it merges, and a write after its
 * flush is kept whatever its key; a filter that throws changes nothing.
 */
class LsmCleanupTest {

    private static final int KEYS = 200;
    /** Keeps the keys whose hash is even. */
    private static final KeyFilter EVEN = key -> (XxHash64.hash(key) & 1) == 0;

    @TempDir(factory = MemoryTempDir.class) // crash images are copies of the files: no power loss tested
    Path tmp;

    private long version = 1L << 40;

    private static LsmOptions options(Path dir) {
        return LsmOptions.defaults(dir)
                .withTombstoneGraceMs(10L * 24 * 3600 * 1000)
                .withCompaction(new CompactionOptions(8, 32, 32L << 20, 0.5, 1.5)); // no merge in the background
    }

    private static String key(int i) {
        return String.format("k%03d", i);
    }

    /** Writes {@link #KEYS} keys over four SSTables (an older version of each in the first), one a tombstone. */
    private List<String> writeFourTables(LsmEngine engine) throws IOException {
        for (int i = 0; i < KEYS; i++) {
            engine.apply(Entry.value(Keys.utf8(key(i)), ++version, Keys.utf8("old-" + i)));
        }
        engine.flush();
        for (int table = 0; table < 2; table++) {
            for (int i = table; i < KEYS; i += 2) {
                engine.apply(Entry.value(Keys.utf8(key(i)), ++version, Keys.utf8("v" + i)));
            }
            engine.flush();
        }
        engine.apply(Entry.tombstone(Keys.utf8(key(7)), ++version));
        engine.flush();
        List<String> rejected = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            if (!EVEN.keep(Keys.utf8(key(i)))) {
                rejected.add(key(i));
            }
        }
        return rejected;
    }

    /** Every key as {@link #writeFourTables} left it, or gone if {@code rejected} holds it and {@code cleaned}. */
    private static void checkKeys(LsmEngine engine, List<String> rejected, boolean cleaned) throws IOException {
        for (int i = 0; i < KEYS; i++) {
            String k = key(i);
            if (cleaned && rejected.contains(k)) {
                assertThat(engine.get(Keys.utf8(k))).as(k).isNull();
            } else if (i == 7) {
                assertThat(engine.get(Keys.utf8(k)).isTombstone()).as(k).isTrue();
            } else {
                assertThat(value(engine, k)).as(k).isEqualTo("v" + i);
            }
        }
    }

    /** A key {@link #EVEN} rejects that {@link #writeFourTables} does not write. */
    private static String rejectedNewKey() {
        for (int i = 0; ; i++) {
            if (!EVEN.keep(Keys.utf8("late-" + i))) {
                return "late-" + i;
            }
        }
    }

    @Test
    void aCrashMidCleanupLeavesTheOldTablesAndOneAfterItTheNewWhileReadsAndWritesGoOn() throws Exception {
        Path dir = tmp.resolve("d");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        KeyFilter blocking = key -> {
            entered.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return EVEN.keep(key);
        };
        String late = rejectedNewKey();
        ExecutorService caller = Executors.newSingleThreadExecutor();
        List<String> rejected;
        Path mid;
        Path after;
        try (LsmEngine engine = LsmEngine.open(options(dir))) {
            rejected = writeFourTables(engine);
            Future<Long> cleanup = caller.submit(() -> engine.cleanup(blocking));
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue(); // the merge has begun
            checkKeys(engine, rejected, false); // reads see the old tables
            engine.apply(Entry.value(Keys.utf8(late), ++version, Keys.utf8("late"))); // after the flush
            mid = CrashImage.copy(engine, dir, tmp.resolve("crash-mid"));
            release.countDown();
            assertThat(cleanup.get(30, TimeUnit.SECONDS)).isEqualTo(rejected.size());
            checkKeys(engine, rejected, true);
            assertThat(value(engine, late)).isEqualTo("late");
            assertThat(engine.tableCount()).isEqualTo(1);
            after = CrashImage.copy(engine, dir, tmp.resolve("crash-after"));
        } finally {
            release.countDown();
            caller.shutdownNow();
        }
        assertThat(rejected).isNotEmpty();
        try (LsmEngine engine = LsmEngine.open(options(mid))) {
            checkKeys(engine, rejected, false);
            assertThat(value(engine, late)).isEqualTo("late"); // from the WAL
        }
        try (Stream<Path> files = Files.list(mid)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
        try (LsmEngine engine = LsmEngine.open(options(after))) {
            checkKeys(engine, rejected, true);
            assertThat(value(engine, late)).isEqualTo("late");
        }
    }

    @Test
    void aFilterThatThrowsChangesNothingAndASecondCleanupFinishes() throws Exception {
        Path dir = tmp.resolve("d");
        AtomicInteger calls = new AtomicInteger();
        KeyFilter failing = key -> {
            if (calls.incrementAndGet() > 50) {
                throw new IllegalStateException("ring changed under the filter");
            }
            return EVEN.keep(key);
        };
        try (LsmEngine engine = LsmEngine.open(options(dir))) {
            List<String> rejected = writeFourTables(engine);
            assertThatThrownBy(() -> engine.cleanup(failing))
                    .isInstanceOf(IOException.class)
                    .hasRootCauseMessage("ring changed under the filter");
            checkKeys(engine, rejected, false);
            assertThat(engine.tableCount()).isEqualTo(4);
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
            }
            assertThat(engine.cleanup(EVEN)).isEqualTo(rejected.size());
            checkKeys(engine, rejected, true);
        }
    }

    @Test
    void aClosedEngineRefusesACleanup() throws IOException {
        LsmEngine engine = LsmEngine.open(options(tmp.resolve("d")));
        engine.close();
        assertThatThrownBy(() -> engine.cleanup(EVEN)).isInstanceOf(IOException.class);
    }
}
