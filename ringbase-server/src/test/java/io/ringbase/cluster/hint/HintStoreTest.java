package io.ringbase.cluster.hint;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HintStoreTest {

    private static final NodeId B = new NodeId(1, "127.0.0.1", 7002);
    private static final NodeId C = new NodeId(2, "127.0.0.1", 7003);

    @TempDir
    Path tmp;

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final long base = 1_700_000_000_000L << 16;
    private HintStore store;

    private HintStore open(HintOptions options) throws IOException {
        store = HintStore.open(tmp.resolve("hints"), options, WalSyncPolicy.PERIODIC, clock::get);
        return store;
    }

    @AfterEach
    void close() throws IOException {
        if (store != null) {
            store.close();
        }
    }

    private static Entry value(String key, long version, String value) {
        return Entry.value(Keys.utf8(key), version, Keys.utf8(value));
    }

    private static List<Hint> all(HintStore s, String target) throws IOException {
        List<Hint> out = new ArrayList<>();
        byte[] start = new byte[0];
        while (true) {
            HintPage page = s.page(target, start, 7, Long.MAX_VALUE);
            out.addAll(page.hints());
            if (!page.hasMore()) {
                return out;
            }
            start = page.next();
        }
    }

    @Test
    void valuesTombstonesAndExpiriesRoundTrip() throws IOException {
        open(HintOptions.defaults());
        Entry a = value("a", base + 1, "one");
        Entry b = Entry.tombstone(Keys.utf8("b"), base + 2);
        Entry c = new Entry(Keys.utf8("c"), base + 3, clock.get() + 60_000, Keys.utf8("ttl"));
        Entry d = value("d", base + 4, "");
        for (Entry e : List.of(c, a, d, b)) {
            assertThat(store.add(B, e)).isTrue();
        }

        List<Hint> hints = all(store, B.toString());

        assertThat(hints).extracting(Hint::entry).containsExactly(a, b, c, d);
        assertThat(hints).allSatisfy(h -> {
            assertThat(h.target()).isEqualTo(B.toString());
            assertThat(h.createdAtMs()).isEqualTo(clock.get());
        });
        assertThat(store.pendingHints()).isEqualTo(4);
        assertThat(store.hintsStored()).isEqualTo(4);
        assertThat(store.hasHints(B.toString())).isTrue();
        assertThat(store.hasHints(C.toString())).isFalse();
    }

    @Test
    void targetsAreKeptApart() throws IOException {
        open(HintOptions.defaults());
        store.add(B, value("k", base + 1, "for-b"));
        store.add(C, value("k", base + 2, "for-c"));
        store.add(C, value("l", base + 3, "for-c"));

        assertThat(all(store, B.toString()))
                .extracting(h -> new String(h.entry().value(), StandardCharsets.UTF_8))
                .containsExactly("for-b");
        assertThat(all(store, C.toString())).hasSize(2);
        assertThat(store.targets()).containsExactly(B.toString(), C.toString());
    }

    @Test
    void pagesCoverEveryHintOnce() throws IOException {
        open(HintOptions.defaults());
        for (int i = 0; i < 100; i++) {
            store.add(B, value(String.format("k%03d", i), base + i, "v" + i));
        }
        List<Hint> hints = all(store, B.toString()); // pages of 7

        assertThat(hints).hasSize(100);
        assertThat(hints)
                .extracting(h -> new String(h.entry().key(), StandardCharsets.UTF_8))
                .isSorted()
                .doesNotHaveDuplicates();
    }

    @Test
    void aPageStopsAfterTheHintThatReachesMaxBytes() throws IOException {
        open(HintOptions.defaults());
        for (int i = 0; i < 5; i++) {
            store.add(B, value("k" + i, base + i, "x".repeat(1000)));
        }

        HintPage first = store.page(B.toString(), new byte[0], 100, 1500);
        HintPage tiny = store.page(B.toString(), new byte[0], 100, 1);

        assertThat(first.hints()).hasSize(2);
        assertThat(first.next()).isEqualTo(Keys.utf8("k1\0"));
        assertThat(tiny.hints()).hasSize(1);
    }

    @Test
    void hintsSurviveCloseAndReopen() throws IOException {
        open(HintOptions.defaults());
        store.add(B, value("a", base + 1, "one"));
        store.add(C, Entry.tombstone(Keys.utf8("b"), base + 2));
        long bytes = store.totalBytes();
        store.close();

        open(HintOptions.defaults());

        assertThat(all(store, B.toString())).extracting(Hint::entry).containsExactly(value("a", base + 1, "one"));
        assertThat(all(store, C.toString()))
                .extracting(Hint::entry)
                .containsExactly(Entry.tombstone(Keys.utf8("b"), base + 2));
        assertThat(store.pendingHints()).isEqualTo(2);
        assertThat(store.totalBytes()).isEqualTo(bytes).isPositive();
    }

    @Test
    void newerHintReplacesOlderAndOlderIsIgnored() throws IOException {
        open(HintOptions.defaults());
        store.add(B, value("k", base + 1, "old"));
        assertThat(store.add(B, value("k", base + 2, "new"))).isTrue();
        assertThat(store.add(B, value("k", base + 1, "old-again"))).isFalse();

        assertThat(all(store, B.toString())).extracting(Hint::entry).containsExactly(value("k", base + 2, "new"));
        assertThat(store.pendingHints()).isEqualTo(1);
    }

    @Test
    void removingWithTheDeliveredVersionKeepsANewerHint() throws IOException {
        open(HintOptions.defaults());
        store.add(B, value("k", base + 1, "old"));
        Hint old = all(store, B.toString()).getFirst();
        store.add(B, value("k", base + 2, "new")); // arrives while "old" is being delivered

        store.delivered(old);

        assertThat(all(store, B.toString())).extracting(Hint::entry).containsExactly(value("k", base + 2, "new"));
        assertThat(store.pendingHints()).isEqualTo(1);
        assertThat(store.hintsDelivered()).isEqualTo(1);
    }

    @Test
    void deliveredHintIsGoneAndItsBytesFreed() throws IOException {
        open(HintOptions.defaults());
        store.add(B, value("k", base + 1, "v"));

        store.delivered(all(store, B.toString()).getFirst());

        assertThat(all(store, B.toString())).isEmpty();
        assertThat(store.hasHints(B.toString())).isFalse();
        assertThat(store.totalBytes()).isZero();
        assertThat(store.add(B, value("k", base + 1, "v")))
                .as("the delivered version again")
                .isFalse();
        store.close();
        open(HintOptions.defaults());
        assertThat(store.pendingHints()).isZero();
    }

    @Test
    void hintPastTheByteBoundIsDroppedAndCounted() throws IOException {
        Entry first = value("k1", base + 1, "x".repeat(100));
        // entry header, stored key (target URL, 0x00, user key), stored value
        long oneHint = 25L + "http://127.0.0.1:7002".length() + 1 + 2 + HintFormat.VALUE_HEADER_SIZE + 100;
        open(HintOptions.defaults().withMaxTotalBytes(2 * oneHint));
        assertThat(store.add(B, first)).isTrue();
        assertThat(store.totalBytes()).isEqualTo(oneHint);
        assertThat(store.add(C, value("k2", base + 2, "x".repeat(100)))).isTrue();

        assertThat(store.add(B, value("k3", base + 3, "x".repeat(100)))).isFalse();

        assertThat(store.hintsDroppedBytes()).isEqualTo(1);
        assertThat(store.totalBytes()).isEqualTo(2 * oneHint);
        assertThat(store.add(B, value("k1", base + 4, "y".repeat(100))))
                .as("a same-size replacement fits")
                .isTrue();
        assertThat(store.pendingHints()).isEqualTo(2);
    }

    @Test
    void hintOlderThanTheAgeWindowIsDroppedAndCounted() throws IOException {
        open(HintOptions.defaults().withMaxAgeMs(1_000));
        store.add(B, value("old", base + 1, "v"));
        clock.addAndGet(600);
        store.add(B, value("young", base + 2, "v"));
        clock.addAndGet(401); // "old" is 1,001 ms old, "young" 401 ms

        assertThat(all(store, B.toString()))
                .extracting(h -> new String(h.entry().key(), StandardCharsets.UTF_8))
                .containsExactly("young");
        assertThat(store.hintsDroppedAge()).isEqualTo(1);
        assertThat(store.pendingHints()).isEqualTo(1);
    }

    @Test
    void entryWithNoRoomForTheHintFieldsIsDroppedAndCounted() throws IOException {
        open(HintOptions.defaults());
        Entry longKey = Entry.value(new byte[Entry.MAX_KEY_BYTES], base + 1, new byte[1]);

        assertThat(store.add(B, longKey)).isFalse();

        assertThat(store.hintsDroppedOversize()).isEqualTo(1);
        assertThat(store.hasHints(B.toString())).isFalse();
    }

    @Test
    void legacyHintsKeyedByListPositionAreMigratedToTheNodeAtThatPositionOnce() throws IOException {
        Path dir = tmp.resolve("hints");
        byte[] header = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; // v1, no flags, created 0, no expiry
        try (io.ringbase.storage.lsm.LsmEngine legacy = io.ringbase.storage.lsm.LsmEngine.open(
                io.ringbase.storage.lsm.LsmOptions.defaults(dir).withTombstoneGraceMs(0))) {
            byte[] v = java.util.Arrays.copyOf(header, header.length + 1);
            v[header.length] = 'x';
            legacy.apply(Entry.value(new byte[] {0, 1, 'a'}, base + 1, v)); // for node #1
            legacy.apply(Entry.value(new byte[] {0, 2, 'b'}, base + 2, v)); // for node #2
            legacy.apply(Entry.value(new byte[] {0, 9, 'c'}, base + 3, v)); // past the list's end
        }
        java.util.function.IntFunction<String> list = i -> i == 1 ? B.toString() : i == 2 ? C.toString() : null;
        clock.set(1_000);
        store = HintStore.open(dir, HintOptions.defaults(), WalSyncPolicy.PERIODIC, clock::get, list);

        assertThat(store.targets()).containsExactly(B.toString(), C.toString());
        assertThat(all(store, B.toString()))
                .extracting(h -> new String(h.entry().key(), StandardCharsets.UTF_8))
                .containsExactly("a");
        assertThat(all(store, C.toString()))
                .extracting(h -> new String(h.entry().key(), StandardCharsets.UTF_8))
                .containsExactly("b");
        assertThat(store.pendingHints()).isEqualTo(2);
        store.close();

        store = HintStore.open(dir, HintOptions.defaults(), WalSyncPolicy.PERIODIC, clock::get, i -> null);
        assertThat(store.pendingHints())
                .as("migrated once, kept after a restart")
                .isEqualTo(2);
    }
}
