package io.ringbase.functions;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.TimeSource;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ShareScansTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final TimeSource clock = now::get;
    private final ShareScans scans = new ShareScans(clock);

    /** A scan that only knows whether it was closed. */
    private static final class Scan implements EntryBatchSource {
        boolean closed;

        @Override
        public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
            return CompletableFuture.completedFuture(List.of());
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static ShareScans.Key key(String from) {
        return new ShareScans.Key("7", "t", "f@h", 0, List.of(), List.of("http://a:1"), "", from);
    }

    @Test
    void aParkedScanIsTakenOnceWithTheEntriesReadAhead() {
        Scan scan = new Scan();
        List<Entry> ahead = List.of(Entry.value(new byte[] {2}, 1, new byte[0]));
        scans.park(key("01"), scan, ahead);
        assertThat(scans.take(key("02"))).isNull(); // another start: not this scan
        ShareScans.Parked p = scans.take(key("01"));
        assertThat(p).isNotNull();
        assertThat(p.scan()).isSameAs(scan);
        assertThat(p.ahead()).isEqualTo(ahead);
        assertThat(scans.take(key("01"))).isNull();
        assertThat(scan.closed).isFalse();
        assertThat(scans.reused()).isEqualTo(1);
    }

    @Test
    void aScanIdlePastTheLimitIsClosed() {
        Scan scan = new Scan();
        scans.park(key("01"), scan, List.of());
        now.addAndGet(ShareScans.IDLE_MS + 1);
        assertThat(scans.take(key("01"))).isNull();
        assertThat(scan.closed).isTrue();
        assertThat(scans.size()).isZero();
    }

    @Test
    void aSweepClosesAnIdleScanWithoutAnotherPage() {
        Scan idle = new Scan();
        scans.park(key("01"), idle, List.of());
        now.addAndGet(ShareScans.IDLE_MS / 2);
        Scan young = new Scan();
        scans.park(key("02"), young, List.of());
        now.addAndGet(ShareScans.IDLE_MS / 2 + 1);
        scans.sweep(); // what the scheduled sweep runs
        assertThat(idle.closed).isTrue();
        assertThat(young.closed).isFalse();
        assertThat(scans.size()).isEqualTo(1);
    }

    @Test
    void theOldestIsClosedPastTheCapacityAndCloseClosesTheRest() {
        Scan first = new Scan();
        scans.park(key("00"), first, List.of());
        Scan[] rest = new Scan[ShareScans.CAPACITY];
        for (int i = 0; i < rest.length; i++) {
            rest[i] = new Scan();
            scans.park(key("1" + i), rest[i], List.of());
        }
        assertThat(first.closed).isTrue();
        assertThat(scans.size()).isEqualTo(ShareScans.CAPACITY);
        scans.close();
        assertThat(rest).allMatch(s -> s.closed);
    }
}
