package io.ringbase.storage.lsm;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.StorageEngine.TryRead;
import io.ringbase.storage.lsm.sstable.ReadPaths;
import io.ringbase.storage.lsm.sstable.SstableReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LsmEngine#tryRead}: it declines exactly the reads that would reach a table out of the page cache. */
class LsmEngineTryReadTest {

    @TempDir
    Path dir;

    @Test
    void aReadThatWouldReachATableReadWithPreadIsDeclinedAndOthersAreAnswered() throws IOException {
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            for (int i = 0; i < 1000; i++) {
                engine.apply(Entry.value(utf8("old" + i), 10 + i, utf8("v" + i)));
            }
            engine.flush();
            engine.apply(Entry.value(utf8("new"), 5_000, utf8("fresh"))); // newer than the table: never reaches it
            List<SstableReader> tables = engine.liveTables();
            assertThat(tables).hasSize(1);
            SstableReader table = tables.getFirst();
            try (ReadCursor cursor = new ReadCursor()) {
                assertThat(engine.tryRead(utf8("old7"), cursor))
                        .as("the table is in the page cache")
                        .isEqualTo(TryRead.FOUND);
            }
            assertThat(engine.stats().preadTables()).isZero();

            ReadPaths.forcePread(table);
            assertThat(engine.stats().preadTables()).isEqualTo(1);
            try (ReadCursor cursor = new ReadCursor()) {
                assertThat(engine.tryRead(utf8("old7"), cursor)).isEqualTo(TryRead.WOULD_WAIT);
                assertThat(engine.tryRead(utf8("new"), cursor))
                        .as("found in the memtable, newer than the table")
                        .isEqualTo(TryRead.FOUND);
                assertThat(cursor.valueLength()).isEqualTo(5);
                int absent = 0;
                for (int i = 0; i < 200; i++) {
                    byte[] key = utf8("absent" + i);
                    if (!table.mightContain(key)) { // the Bloom filter rules it out: no block is read
                        absent++;
                        assertThat(engine.tryRead(key, cursor)).isEqualTo(TryRead.NOT_FOUND);
                    }
                }
                assertThat(absent).isGreaterThan(150);
                assertThat(engine.read(utf8("old7"), cursor))
                        .as("read waits for the disk instead")
                        .isTrue();
                assertThat(cursor.valueLength()).isEqualTo(2);
            }
            for (int i = 0; i < 10_000; i++) { // a declined read gives its view back
                try (ReadCursor cursor = new ReadCursor()) {
                    assertThat(engine.tryRead(utf8("old" + (i % 1000)), cursor)).isEqualTo(TryRead.WOULD_WAIT);
                }
            }
            engine.apply(Entry.value(utf8("old7"), 9_000, utf8("rewritten")));
            try (ReadCursor cursor = new ReadCursor()) {
                assertThat(engine.tryRead(utf8("old7"), cursor))
                        .as("the memtable's entry is newer than the table")
                        .isEqualTo(TryRead.FOUND);
                assertThat(cursor.valueLength()).isEqualTo(9);
            }
        }
    }
}
