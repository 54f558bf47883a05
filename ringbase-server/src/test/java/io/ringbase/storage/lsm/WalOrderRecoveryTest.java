package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.manifest.FileNames;
import io.ringbase.storage.lsm.wal.WalWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery keeps a prefix of the write history across WAL segments: a later segment is replayed only if
 * the segment before it holds every acknowledged record its {@code PREDECESSOR} record asks for (or, for
 * a segment without one, did not end torn). Otherwise it and every later segment are dropped.
 */
class WalOrderRecoveryTest {

    private static final long NEVER_MS = 3_600_000;

    @TempDir
    Path tmp;

    /** Segment 1 holds a, b, c; segment 2, following it if asked, holds d. Returns the end offsets in 1. */
    private long[] twoSegments(Path dir, WalSyncPolicy policy, boolean link) throws IOException {
        Files.createDirectories(dir);
        long[] ends = new long[3];
        try (WalWriter w1 = WalWriter.create(FileNames.wal(dir, 1), policy, NEVER_MS);
                WalWriter w2 = WalWriter.create(FileNames.wal(dir, 2), policy, NEVER_MS)) {
            String[] keys = {"a", "b", "c"};
            for (int i = 0; i < 3; i++) {
                w1.append(Entry.value(Keys.utf8(keys[i]), 1L << 40 | i, Keys.utf8("value-" + keys[i])));
                ends[i] = w1.sizeBytes();
            }
            if (link) {
                w2.follow(1, w1);
            }
            w2.append(Entry.value(Keys.utf8("d"), 1L << 40 | 3, Keys.utf8("value-d")));
        }
        return ends;
    }

    private static void cut(Path file, long length) throws IOException {
        Files.write(file, Arrays.copyOf(Files.readAllBytes(file), (int) length));
    }

    @Test
    void aLaterSegmentIsDroppedWhenAnEarlierOneLostWholeRecords() throws IOException {
        Path dir = tmp.resolve("d");
        long[] ends = twoSegments(dir, WalSyncPolicy.PERIODIC, true);
        cut(FileNames.wal(dir, 1), ends[1]); // c lost at a record boundary; d reached the disk
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(engine.get(Keys.utf8("b"))).isNotNull();
            assertThat(engine.get(Keys.utf8("c"))).isNull();
            assertThat(engine.get(Keys.utf8("d")))
                    .as("a later write without an earlier one")
                    .isNull();
        }
        assertThat(FileNames.wal(dir, 2)).doesNotExist(); // dropped for good: the next start agrees
    }

    @Test
    void aTornSegmentWithoutASuccessorLinkEndsTheReplay() throws IOException {
        Path dir = tmp.resolve("d");
        long[] ends = twoSegments(dir, WalSyncPolicy.PERIODIC, false); // as version-1 segments are
        cut(FileNames.wal(dir, 1), ends[2] - 3); // c torn
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(engine.get(Keys.utf8("b"))).isNotNull();
            assertThat(engine.get(Keys.utf8("c"))).isNull();
            assertThat(engine.get(Keys.utf8("d"))).isNull();
        }
    }

    @Test
    void aLaterSegmentIsReplayedWhenTheEarlierOneHoldsEveryAcknowledgedRecord() throws IOException {
        Path dir = tmp.resolve("d");
        twoSegments(dir, WalSyncPolicy.ALWAYS, true);
        Path first = FileNames.wal(dir, 1);
        byte[] bytes = Files.readAllBytes(first);
        // the first 20 bytes of a batch whose fsync failed, never acknowledged: a record cut off
        byte[] torn = Arrays.copyOf(bytes, bytes.length + 20);
        System.arraycopy(bytes, 8, torn, bytes.length, 20);
        Files.write(first, torn);
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            assertThat(engine.get(Keys.utf8("c"))).isNotNull();
            assertThat(engine.get(Keys.utf8("d")))
                    .as("acknowledged after an fsync")
                    .isNotNull();
        }
    }
}
