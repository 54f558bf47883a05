package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.manifest.FileNames;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A point read that meets a table the disk cannot read (EIO on a mapped page, which the JVM raises as an
 * {@link InternalError}; or EIO from {@code pread}), injected through {@link ReadPath.TableProbe}: the read
 * fails with a {@link CorruptionException} naming the table instead of an {@code Error}, the table is
 * quarantined as a damaged compaction input is, and the node goes on serving the rest.
 */
class UnreadableTableTest {

    @TempDir
    Path tmp;

    private long version = 1L << 40;

    private void unreadableTableIsQuarantined(Supplier<Throwable> fault, Class<? extends Throwable> cause)
            throws IOException {
        Path dir = tmp.resolve("d");
        AtomicReference<Path> failing = new AtomicReference<>();
        ReadPath.TableProbe disk = (table, key, prefix, hash, into) -> {
            if (table.path().equals(failing.get())) {
                Throwable t = fault.get();
                if (t instanceof IOException io) {
                    throw io;
                }
                throw (Error) t;
            }
            return table.locate(key, prefix, hash, into);
        };
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir), disk)) {
            engine.apply(Entry.value(Keys.utf8("a"), ++version, Keys.utf8("1")));
            engine.flush();
            Path bad = engine.liveTables().getFirst().path();
            engine.apply(Entry.value(Keys.utf8("b"), ++version, Keys.utf8("2")));
            engine.flush();
            failing.set(bad);

            assertThatThrownBy(() -> engine.get(Keys.utf8("a")))
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining(bad.getFileName().toString())
                    .hasCauseInstanceOf(cause);
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(10))
                    .alias("the unreadable table is quarantined")
                    .until(() -> engine.stats().quarantinedTables() == 1);
            assertThat(bad).doesNotExist();
            assertThat(dir.resolve(FileNames.QUARANTINE).resolve(bad.getFileName()))
                    .exists();
            assertThat(engine.tableCount()).isEqualTo(1);
            assertThat(engine.get(Keys.utf8("b"))).isNotNull();
            assertThat(engine.get(Keys.utf8("a")))
                    .as("no longer served: repair brings it back")
                    .isNull();
            engine.apply(Entry.value(Keys.utf8("c"), ++version, Keys.utf8("3")));
        }
        try (LsmEngine reopened = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(reopened.get(Keys.utf8("b"))).isNotNull();
            assertThat(reopened.get(Keys.utf8("c"))).isNotNull();
        }
    }

    @Test
    void aMappedPageTheDiskCannotReadFailsTheReadAndQuarantinesTheTable() throws IOException {
        unreadableTableIsQuarantined(
                () -> new InternalError("a fault occurred in an unsafe memory access operation"), InternalError.class);
    }

    @Test
    void aPreadWithEioFailsTheReadAndQuarantinesTheTable() throws IOException {
        unreadableTableIsQuarantined(() -> new IOException("pread: Input/output error"), IOException.class);
    }

    @Test
    void anotherErrorIsThrownAsItIsAndQuarantinesNothing() throws IOException {
        AtomicReference<Path> failing = new AtomicReference<>();
        ReadPath.TableProbe disk = (table, key, prefix, hash, into) -> {
            if (table.path().equals(failing.get())) {
                throw new InternalError("something else");
            }
            return table.locate(key, prefix, hash, into);
        };
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(tmp.resolve("d")), disk)) {
            engine.apply(Entry.value(Keys.utf8("a"), ++version, Keys.utf8("1")));
            engine.flush();
            failing.set(engine.liveTables().getFirst().path());
            assertThatThrownBy(() -> engine.get(Keys.utf8("a")))
                    .isInstanceOf(InternalError.class)
                    .hasMessage("something else");
            assertThat(engine.stats().quarantinedTables()).isZero();
            assertThat(engine.tableCount()).isEqualTo(1);
        }
    }
}
