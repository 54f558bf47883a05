package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table opened with a {@link PinnedSections} budget reads its index and Bloom filter from a copy in
 * native memory, takes exactly their size from the budget and gives it back when it closes or fails to
 * open; past the budget it reads them in its mapping, with the same answers.
 */
class PinnedSectionsTest {

    @TempDir
    Path dir;

    private static String key(int i) {
        return String.format("key%06d", i);
    }

    private Path table(String name, int n) throws IOException {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            entries.add(Entry.value(utf8(key(2 * i)), 100 + i, utf8("value-" + i + "-".repeat(i % 40))));
        }
        Path file = dir.resolve(name);
        Tables.write(file, entries);
        return file;
    }

    private static void assertReadsAll(SstableReader r, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            Entry e = r.get(utf8(key(2 * i)));
            assertThat(e).as("key %d", 2 * i).isNotNull();
            assertThat(e.version()).isEqualTo(100 + i);
            assertThat(r.get(utf8(key(2 * i + 1)))).isNull();
        }
        assertThat(Tables.scan(r, utf8(key(0)), null)).hasSize(n);
    }

    @Test
    void aTableThatFitsTakesItsSectionsSizeAndGivesItBack() throws IOException {
        Path file = table("a.sst", 5_000);
        Footer f = Tables.footer(file);
        PinnedSections budget = new PinnedSections(1 << 20);
        try (SstableReader r = SstableReader.open(file, BlockCache.NONE, budget)) {
            assertThat(r.pinnedBytes())
                    .isGreaterThanOrEqualTo(f.indexLength() + f.bloomLength())
                    .isLessThan(f.indexLength() + f.bloomLength() + 8);
            assertThat(budget.usedBytes()).isEqualTo(r.pinnedBytes());
            assertReadsAll(r, 5_000);
        }
        assertThat(budget.usedBytes()).isZero();
    }

    @Test
    void pinnedLookupsReadNeitherIndexNorFilterFromTheFile() throws IOException {
        Path file = table("a.sst", 3_000);
        Footer f = Tables.footer(file);
        PinnedSections budget = new PinnedSections(1 << 20);
        try (SstableReader pinned = SstableReader.open(file, BlockCache.NONE, budget);
                SstableReader mapped = SstableReader.open(file, BlockCache.NONE, PinnedSections.NONE)) {
            // zeroes the file's index and filter under both readers: the mapping shows the change
            Tables.overwrite(file, f.indexOffset(), new byte[(int) f.indexLength()]);
            Tables.overwrite(file, f.bloomOffset() + 12, new byte[(int) f.bloomLength() - 12]);
            assertThat(mapped.mightContain(utf8(key(0))))
                    .as("the file's filter now rules every key out")
                    .isFalse();
            assertReadsAll(pinned, 3_000);
        }
    }

    @Test
    void tablesPastTheBudgetReadTheirSectionsInTheMapping() throws IOException {
        Path a = table("a.sst", 4_000);
        Path b = table("b.sst", 4_000);
        Footer f = Tables.footer(a);
        PinnedSections budget = new PinnedSections(f.indexLength() + f.bloomLength() + 8);
        try (SstableReader first = SstableReader.open(a, BlockCache.NONE, budget)) {
            assertThat(first.pinnedBytes()).isPositive();
            try (SstableReader second = SstableReader.open(b, BlockCache.NONE, budget)) {
                assertThat(second.pinnedBytes()).isZero();
                assertThat(budget.usedBytes()).isEqualTo(first.pinnedBytes());
                assertReadsAll(second, 4_000);
            }
        }
        try (SstableReader again = SstableReader.open(b, BlockCache.NONE, budget)) {
            assertThat(again.pinnedBytes())
                    .as("the first table's share came back")
                    .isPositive();
        }
        assertThat(budget.usedBytes()).isZero();
    }

    @Test
    void aDamagedIndexIsFoundInTheCopyAndItsShareGivenBack() throws IOException {
        Path file = table("a.sst", 2_000);
        Footer f = Tables.footer(file);
        Tables.flip(file, f.indexOffset() + f.indexLength() / 2, 0x10);
        PinnedSections budget = new PinnedSections(1 << 20);
        assertThatThrownBy(() -> SstableReader.open(file, BlockCache.NONE, budget))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("index checksum mismatch");
        assertThat(budget.usedBytes()).isZero();
    }

    @Test
    void aNegativeBudgetIsRefused() {
        assertThatThrownBy(() -> new PinnedSections(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }
}
