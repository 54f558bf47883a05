package io.ringbase.storage.lsm.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WalWriter#sync()} under {@code periodic} returns only once an fsync that covers every record
 * appended before it has completed, also while the periodic fsync is in flight (the
 * syncer once cleared the "unsynced" flag before its force, so a sync() arriving meanwhile returned at
 * once, before the data was on disk).
 */
class WalSyncWaitsTest {

    @TempDir
    Path tmp;

    @Test
    void syncWaitsForAPeriodicFsyncInFlight() throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path file = tmp.resolve("wal-000001.log");
        try (WalWriter w = WalWriter.create(io, file, WalSyncPolicy.PERIODIC, 5, new WalStats())) {
            long forcesBefore = io.count(Op.FORCE);
            io.delay(Op.FORCE, 400); // the periodic fsync will take 400 ms
            io.record(true);
            w.append(Entry.value(Keys.utf8("a"), 1, Keys.utf8("1")));
            // until the syncer has begun its (slow) force
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> io.count(Op.FORCE), n -> n > forcesBefore);
            assertThat(io.count(Op.FORCE)).isGreaterThan(forcesBefore);
            w.sync();
            boolean forced = io.events().stream()
                    .anyMatch(e -> e.op() == Op.FORCE && e.path().equals(file));
            assertThat(forced)
                    .as("an fsync covering the record completed before sync() returned")
                    .isTrue();
            io.heal();
        }
    }
}
