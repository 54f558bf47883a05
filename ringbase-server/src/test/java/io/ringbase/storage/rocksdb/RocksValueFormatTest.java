package io.ringbase.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.TypedEntries;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** docs/format.md section 8.3, byte by byte. */
class RocksValueFormatTest {

    private static final byte[] KEY = Keys.utf8("k");

    @Test
    void aValueIsFlagsVersionExpiryLittleEndianThenTheBytes() {
        byte[] b =
                RocksValueFormat.encode(0x0102030405060708L, 0x1122L, MemorySegment.ofArray(new byte[] {(byte) 0xAB}));
        assertThat(HexFormat.of().formatHex(b)).isEqualTo("00" + "0807060504030201" + "2211000000000000" + "ab");
        assertThat(RocksValueFormat.decode(KEY, b))
                .isEqualTo(new Entry(KEY, 0x0102030405060708L, 0x1122L, new byte[] {(byte) 0xAB}));
    }

    @Test
    void aTombstoneIsTheHeaderAloneWithFlagOne() {
        byte[] b = RocksValueFormat.encode(9, Entry.NO_EXPIRY, null);
        assertThat(b).hasSize(RocksValueFormat.HEADER_SIZE);
        assertThat(b[0]).isEqualTo((byte) 1);
        assertThat(RocksValueFormat.isTombstone(b)).isTrue();
        assertThat(RocksValueFormat.decode(KEY, b)).isEqualTo(Entry.tombstone(KEY, 9));
    }

    @Test
    void anEmptyValueIsNotATombstone() {
        byte[] b = RocksValueFormat.encode(9, Entry.NO_EXPIRY, MemorySegment.ofArray(new byte[0]));
        assertThat(RocksValueFormat.decode(KEY, b).value()).isEmpty();
    }

    @Test
    void truncatedHeaderIsRefused() {
        byte[] b = RocksValueFormat.encode(9, Entry.NO_EXPIRY, null);
        assertThatThrownBy(() -> RocksValueFormat.decode(KEY, java.util.Arrays.copyOf(b, 16)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("16 bytes");
    }

    @Test
    void unknownFlagBitsAreRefused() {
        byte[] b = RocksValueFormat.encode(9, Entry.NO_EXPIRY, MemorySegment.ofArray(new byte[] {1}));
        b[0] = 0x02;
        assertThatThrownBy(() -> RocksValueFormat.decode(KEY, b)).hasMessageContaining("flags 0x2");
    }

    @Test
    void aTombstoneWithBytesAfterTheHeaderIsRefused() {
        byte[] b = RocksValueFormat.encode(9, Entry.NO_EXPIRY, MemorySegment.ofArray(new byte[] {1}));
        b[0] = RocksValueFormat.TOMBSTONE;
        assertThatThrownBy(() -> RocksValueFormat.decode(KEY, b)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void typedValuesKeepTheirBit() {
        for (Entry e : TypedEntries.random(23, 60)) {
            byte[] v = e.value();
            byte[] b = RocksValueFormat.encode(
                    e.version(), e.expiresAtMs(), v == null ? null : MemorySegment.ofArray(v), e.typed());
            Entry back = RocksValueFormat.decode(e.key(), b);
            assertThat(back).isEqualTo(e);
            assertThat(back.typed()).isEqualTo(e.typed());
        }
    }
}
