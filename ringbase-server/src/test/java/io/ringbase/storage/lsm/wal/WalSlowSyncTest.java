package io.ringbase.storage.lsm.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.logging.LogCapture;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WAL fsync slower than {@link WalWriter#SLOW_SYNC_MS} is logged, at most once per 10 s per engine (the
 * count of lines held back is {@code LogThrottle}'s, tested in {@code LogThrottleTest}).
 */
@Timeout(60)
class WalSlowSyncTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture log = new LogCapture(WalWriter.class);

    private List<String> warnings() {
        return log.warningMessages();
    }

    private static Entry entry(int i) {
        return Entry.value(Keys.utf8("k" + i), i, Keys.utf8("v" + i));
    }

    @Test
    void slowFsyncsGiveOneWarningThatNamesTheSegmentAndWhatWaits() throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        WalStats stats = new WalStats();
        Path first = dir.resolve("wal-00000000000000000001.log");
        Path second = dir.resolve("wal-00000000000000000002.log");
        try (WalWriter w = WalWriter.create(io, first, WalSyncPolicy.ALWAYS, 1000, stats)) {
            w.append(entry(0)); // a fast fsync: nothing logged
            assertThat(warnings()).isEmpty();
            io.delay(FaultInjectingFileIo.Op.FORCE, WalWriter.SLOW_SYNC_MS + 50);
            for (int i = 1; i <= 3; i++) {
                w.append(entry(i)); // ALWAYS: each append fsyncs before it returns
            }
        }
        List<String> lines = warnings();
        assertThat(lines).hasSize(1);
        assertThat(lines.getFirst())
                .startsWith("WAL fsync of " + first.getFileName() + " took ")
                .contains("(fsyncs over 100 ms since the last such line: 1)")
                .contains("every write waits for its fsync before it is acknowledged")
                .contains("iostat");
        // the next segment of the same engine within 10 s: counted, not logged again
        try (WalWriter w = WalWriter.create(io, second, WalSyncPolicy.ALWAYS, 1000, stats)) {
            w.append(entry(4));
        }
        assertThat(warnings()).hasSize(1);
    }
}
