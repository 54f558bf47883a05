package io.ringbase.storage.lsm.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Event;
import io.ringbase.storage.lsm.io.FaultInjectingFileIo.Op;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of WAL segments: a segment that follows another names it and its acknowledged length in
 * its first record, and fsyncs it before itself, so that no record is durable before the records of
 * an earlier segment.
 */
class WalOrderTest {

    private static final long NEVER_MS = 3_600_000; // no periodic fsync during the test

    @TempDir
    Path tmp;

    @Test
    void aSegmentsFsyncSyncsItsPredecessorFirst() throws IOException {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        Path first = tmp.resolve("wal-1.log");
        Path second = tmp.resolve("wal-2.log");
        try (WalWriter w1 = WalWriter.create(io, first, WalSyncPolicy.PERIODIC, NEVER_MS, new WalStats());
                WalWriter w2 = WalWriter.create(io, second, WalSyncPolicy.PERIODIC, NEVER_MS, new WalStats())) {
            w1.append(Entry.value(Keys.utf8("a"), 1, Keys.utf8("earlier")));
            w2.follow(1, w1);
            w2.append(Entry.value(Keys.utf8("b"), 2, Keys.utf8("later")));
            io.record(true);
            w2.sync();
            io.record(false);
        }
        List<Path> forced = new ArrayList<>();
        for (Event e : io.events()) {
            if (e.op() == Op.FORCE) {
                forced.add(e.path());
            }
        }
        assertThat(forced).as("fsyncs, in order").containsExactly(first, second);
    }

    @Test
    void aSegmentLetsGoOfEarlierSegmentsOnceTheyAreClosedAndSynced() throws IOException {
        WalWriter w1 = WalWriter.create(tmp.resolve("wal-1.log"), WalSyncPolicy.PERIODIC, NEVER_MS);
        WalWriter w2 = WalWriter.create(tmp.resolve("wal-2.log"), WalSyncPolicy.PERIODIC, NEVER_MS);
        try (WalWriter w3 = WalWriter.create(tmp.resolve("wal-3.log"), WalSyncPolicy.PERIODIC, NEVER_MS)) {
            w1.append(Entry.value(Keys.utf8("a"), 1, Keys.utf8("v")));
            w2.follow(1, w1);
            w2.append(Entry.value(Keys.utf8("b"), 2, Keys.utf8("v")));
            w2.close(); // syncs w1 first, which is still open: w2 keeps it
            assertThat(w2.holdsPredecessorForTest()).isTrue();
            w1.close();
            w3.follow(2, w2);
            w3.append(Entry.value(Keys.utf8("c"), 3, Keys.utf8("v")));
            w3.sync();
            assertThat(w3.holdsPredecessorForTest())
                    .as("no chain of closed segments is kept")
                    .isFalse();
            assertThat(w2.holdsPredecessorForTest()).isFalse();
        } finally {
            w1.close(); // idempotent
            w2.close();
        }
    }

    @Test
    void theFirstRecordNamesThePredecessorAndItsAcknowledgedLength() throws IOException {
        Path first = tmp.resolve("wal-7.log");
        Path second = tmp.resolve("wal-9.log");
        long acknowledged;
        try (WalWriter w1 = WalWriter.create(first, WalSyncPolicy.PERIODIC, NEVER_MS);
                WalWriter w2 = WalWriter.create(second, WalSyncPolicy.PERIODIC, NEVER_MS)) {
            w1.append(Entry.value(Keys.utf8("a"), 1, Keys.utf8("v")));
            acknowledged = w1.sizeBytes(); // periodic: written is acknowledged
            w2.follow(7, w1);
            w2.append(Entry.value(Keys.utf8("b"), 2, Keys.utf8("v")));
        }
        assertThat(WalReader.predecessor(second)).contains(new WalReader.Predecessor(7, acknowledged));
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(second)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt(4)).isEqualTo(2); // version
        assertThat(b.getInt(8 + 4)).isEqualTo(16); // length
        assertThat(b.get(8 + 8)).isEqualTo((byte) 2); // type PREDECESSOR
        assertThat(b.getLong(8 + 9)).isEqualTo(7); // prevNumber
        assertThat(b.getLong(8 + 17)).isEqualTo(acknowledged); // prevBytes
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 8 + 4, 21); // length, type, payload
        assertThat(b.getInt(8)).isEqualTo((int) crc.getValue());
        assertThat(WalReader.predecessor(first)).isEmpty();
        List<Entry> replayed = new ArrayList<>();
        WalReader.ReplayResult r = WalReader.replay(second, replayed::add);
        assertThat(replayed)
                .extracting(e -> new String(e.key(), java.nio.charset.StandardCharsets.UTF_8))
                .containsExactly("b"); // the record is no entry
        assertThat(r.tornTail()).isFalse();
    }

    @Test
    void underAlwaysTheAcknowledgedLengthIsWhatWasFsynced() throws IOException {
        try (WalWriter w = WalWriter.create(tmp.resolve("wal-1.log"), WalSyncPolicy.ALWAYS, NEVER_MS)) {
            w.append(Entry.value(Keys.utf8("a"), 1, Keys.utf8("v")));
            assertThat(w.acknowledgedBytes()).isEqualTo(w.sizeBytes());
        }
    }
}
