package io.ringbase.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class InternalProtocolTest {

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aValueRoundTrips() {
        Entry e = Entry.value(b("key"), 123_456_789L, b("value"));
        assertThat(InternalProtocol.decode(InternalProtocol.encode(List.of(e)))).containsExactly(e);
    }

    @Test
    void aTombstoneRoundTripsAsATombstone() {
        Entry e = Entry.tombstone(b("gone"), 42L);
        Entry back =
                InternalProtocol.decode(InternalProtocol.encode(List.of(e))).getFirst();
        assertThat(back).isEqualTo(e);
        assertThat(back.isTombstone()).isTrue();
    }

    @Test
    void anExpiryRoundTrips() {
        Entry e = new Entry(b("ttl"), 7L, 1_763_700_060_000L, b("v"));
        Entry back =
                InternalProtocol.decode(InternalProtocol.encode(List.of(e))).getFirst();
        assertThat(back.expiresAtMs()).isEqualTo(1_763_700_060_000L);
        assertThat(back).isEqualTo(e);
    }

    @Test
    void anEmptyValueIsNotATombstone() {
        Entry e = Entry.value(b("empty"), 1L, new byte[0]);
        Entry back =
                InternalProtocol.decode(InternalProtocol.encode(List.of(e))).getFirst();
        assertThat(back.isTombstone()).isFalse();
        assertThat(back.value()).isEmpty();
    }

    @Test
    void randomPagesRoundTrip() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            List<Entry> page = new ArrayList<>();
            for (int i = random.nextInt(5); i > 0; i--) {
                byte[] key = new byte[random.nextInt(40)];
                random.nextBytes(key);
                long version = random.nextLong() & Long.MAX_VALUE;
                long expiry = random.nextBoolean() ? Entry.NO_EXPIRY : 1 + (random.nextLong() & 0xFFFFFFFFFFFL);
                byte[] value = null;
                if (random.nextInt(4) != 0) {
                    value = new byte[random.nextInt(100)];
                    random.nextBytes(value);
                }
                page.add(value == null ? Entry.tombstone(key, version) : new Entry(key, version, expiry, value));
            }
            assertThat(InternalProtocol.decode(InternalProtocol.encode(page))).isEqualTo(page);
        }
    }

    @Test
    void anEmptyBodyIsAnEmptyPage() {
        assertThat(InternalProtocol.decode(new byte[0])).isEmpty();
        assertThat(InternalProtocol.encode(List.of())).isEmpty();
    }

    @Test
    void aTruncatedBodyIsRefused() {
        byte[] ok = InternalProtocol.encode(List.of(Entry.value(b("key"), 1L, b("value"))));
        for (int len = 1; len < ok.length; len++) {
            byte[] cut = Arrays.copyOf(ok, len);
            assertThatThrownBy(() -> InternalProtocol.decode(cut))
                    .as("length %d", len)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void unknownFlagsAreRefused() {
        byte[] bytes = InternalProtocol.encode(List.of(Entry.value(b("key"), 1L, b("value"))));
        bytes[0] = (byte) 0x80;
        assertThatThrownBy(() -> InternalProtocol.decode(bytes)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTombstoneWithAValueLengthIsRefused() {
        byte[] bytes = InternalProtocol.encode(List.of(Entry.value(b("key"), 1L, b("value"))));
        bytes[0] = 1; // tombstone flag on an entry with a value
        assertThatThrownBy(() -> InternalProtocol.decode(bytes)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anExpiryFlagWithoutExpiryIsRefused() {
        byte[] bytes = InternalProtocol.encode(List.of(Entry.value(b("key"), 1L, b("value"))));
        bytes[0] = 2;
        assertThatThrownBy(() -> InternalProtocol.decode(bytes)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHugeKeyLengthIsRefused() {
        byte[] bytes = InternalProtocol.encode(List.of(Entry.value(b("key"), 1L, b("value"))));
        bytes[17] = (byte) 0xFF; // key length, little-endian, at offset 1 + 8 + 8
        bytes[18] = (byte) 0xFF;
        bytes[19] = (byte) 0xFF;
        bytes[20] = (byte) 0x7F;
        assertThatThrownBy(() -> InternalProtocol.decode(bytes)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysTravelAsLowercaseHex() {
        assertThat(InternalProtocol.hex(new byte[] {0x6b, (byte) 0xFF, 0})).isEqualTo("6bff00");
        assertThat(InternalProtocol.unhex("6bff00")).containsExactly(0x6b, 0xFF, 0);
        assertThatThrownBy(() -> InternalProtocol.unhex("6")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InternalProtocol.unhex("zz")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPageCarriesItsNextKey() {
        byte[] body = InternalProtocol.encode(List.of(Entry.value(b("a"), 1L, b("1"))));
        EntryPage last = InternalProtocol.page(body, null);
        assertThat(last.hasMore()).isFalse();
        EntryPage more = InternalProtocol.page(body, InternalProtocol.hex(EntryPage.successor(b("a"))));
        assertThat(more.hasMore()).isTrue();
        assertThat(more.next()).containsExactly('a', 0);
    }

    @Test
    void aPingBodySaysWhetherTheEngineCanWriteAndAnEmptyOneMeansItCan() {
        org.assertj.core.api.Assertions.assertThat(InternalProtocol.pingBody(null))
                .isEmpty();
        org.assertj.core.api.Assertions.assertThat(InternalProtocol.pingUnwritableReason(new byte[0]))
                .isNull();
        byte[] full = InternalProtocol.pingBody("WAL segment wal-1.log failed: No space left on device");
        org.assertj.core.api.Assertions.assertThat(new String(full, java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("unwritable: WAL segment wal-1.log failed: No space left on device");
        org.assertj.core.api.Assertions.assertThat(InternalProtocol.pingUnwritableReason(full))
                .isEqualTo("WAL segment wal-1.log failed: No space left on device");
    }
}
