package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Ingest;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmEngine#ingest}: entries loaded in key order become a table of their own, with no WAL record
 * and no memtable; they merge by version with what is stored, survive a restart, and an abandoned ingest
 * leaves neither entries nor files.
 */
class TableIngestTest {

    @TempDir
    Path tmp;

    private static final long V = 1L << 40;

    private static byte[] key(int i) {
        return Keys.utf8(String.format("k%05d", i));
    }

    @Test
    void ingestedEntriesAreReadAndSurviveARestart() throws IOException {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            long walBytes = engine.stats().walBytes();
            long memtableBytes = engine.memtableBytes();
            try (Ingest in = engine.ingest(1_000)) {
                for (int i = 0; i < 1_000; i++) {
                    in.add(Entry.value(key(i), V + i, Keys.utf8("v" + i)));
                }
                in.add(Entry.tombstone(key(1_000), V));
                assertThat(in.entries()).isEqualTo(1_001);
                assertThat(engine.get(key(5)))
                        .as("nothing is visible before finish")
                        .isNull();
                in.finish();
            }
            assertThat(engine.tableCount()).isEqualTo(1);
            assertThat(engine.stats().walBytes()).as("no WAL record").isEqualTo(walBytes);
            assertThat(engine.memtableBytes()).as("no memtable entry").isEqualTo(memtableBytes);
            assertThat(engine.get(key(7)).value()).isEqualTo(Keys.utf8("v7"));
            assertThat(engine.get(key(1_000)).isTombstone()).isTrue();
        }
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            List<Entry> live = new ArrayList<>();
            try (CloseableIterator<Entry> it = engine.scan(null, null, true)) {
                it.forEachRemaining(live::add);
            }
            assertThat(live).hasSize(1_000);
            assertThat(engine.maxVersion()).isEqualTo(V + 999);
        }
    }

    @Test
    void versionsDecideBetweenIngestedAndWrittenEntries() throws IOException {
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(tmp.resolve("d")))) {
            engine.apply(Entry.value(key(1), V + 10, Keys.utf8("written, newer")));
            engine.apply(Entry.value(key(2), V + 10, Keys.utf8("written, older")));
            try (Ingest in = engine.ingest(10)) {
                in.add(Entry.value(key(1), V + 5, Keys.utf8("ingested, older")));
                in.add(Entry.value(key(2), V + 20, Keys.utf8("ingested, newer")));
                in.finish();
            }
            assertThat(engine.get(key(1)).value()).isEqualTo(Keys.utf8("written, newer"));
            assertThat(engine.get(key(2)).value()).isEqualTo(Keys.utf8("ingested, newer"));
            engine.flush();
            engine.compactAll();
            assertThat(engine.get(key(1)).value()).isEqualTo(Keys.utf8("written, newer"));
            assertThat(engine.get(key(2)).value()).isEqualTo(Keys.utf8("ingested, newer"));
        }
    }

    @Test
    void anAbandonedIngestLeavesNothing() throws IOException {
        Path dir = tmp.resolve("d");
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            Ingest in = engine.ingest(10);
            in.add(Entry.value(key(1), V, Keys.utf8("x")));
            in.close();
            assertThat(engine.get(key(1))).isNull();
            assertThat(engine.tableCount()).isZero();
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".sst"));
            }
        }
    }

    @Test
    void aKeyOutOfOrderIsRefused() throws IOException {
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(tmp.resolve("d")));
                Ingest in = engine.ingest(10)) {
            in.add(Entry.value(key(2), V, Keys.utf8("x")));
            assertThatThrownBy(() -> in.add(Entry.value(key(1), V, Keys.utf8("y"))))
                    .isInstanceOf(IllegalArgumentException.class);
            in.add(Entry.value(key(3), V, Keys.utf8("z")));
            in.finish();
            assertThat(engine.get(key(1))).isNull();
            assertThat(engine.get(key(3))).isNotNull();
        }
    }
}
