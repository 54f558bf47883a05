package io.ringbase.cluster.hint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.TypedEntries;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HintFormatTest {

    private static final Path DIR = Path.of("hints");

    private static Entry stored() {
        return HintFormat.encode(
                new Hint("http://b:1", new Entry(Keys.utf8("key"), 77, 1234, Keys.utf8("val")), 0x0102030405060708L));
    }

    @Test
    void layoutIsAsDocumented() {
        Entry s = stored();

        assertThat(s.key()).containsExactly('h', 't', 't', 'p', ':', '/', '/', 'b', ':', '1', 0, 'k', 'e', 'y');
        assertThat(s.version()).isEqualTo(77);
        assertThat(s.expiresAtMs()).isEqualTo(Entry.NO_EXPIRY);
        assertThat(s.value())
                .containsExactly(
                        2,
                        0, // formatVersion, flags
                        8,
                        7,
                        6,
                        5,
                        4,
                        3,
                        2,
                        1, // createdAtMs, little-endian
                        (byte) 0xD2,
                        0x04,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0, // expiresAtMs 1234
                        'v',
                        'a',
                        'l');
    }

    @Test
    void roundTripsValuesAndTombstones() throws CorruptionException {
        Hint value = new Hint("http://10.0.0.3:8080", new Entry(Keys.utf8("k"), 9, 55, Keys.utf8("v")), 42);
        Hint tombstone = new Hint("http://[::1]:8080", Entry.tombstone(Keys.utf8("k"), 10), 43);

        assertThat(HintFormat.decode(HintFormat.encode(value), DIR)).isEqualTo(value);
        assertThat(HintFormat.decode(HintFormat.encode(tombstone), DIR)).isEqualTo(tombstone);
    }

    @Test
    void unknownFormatVersionIsRefused() {
        Entry s = stored();
        s.value()[0] = 3;

        assertThatThrownBy(() -> HintFormat.decode(s, DIR))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("unknown hint format version 3");
    }

    @Test
    void unknownFlagIsRefused() {
        Entry s = stored();
        s.value()[1] = 0x02;

        assertThatThrownBy(() -> HintFormat.decode(s, DIR))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("flags");
    }

    @Test
    void truncatedHeaderIsRefused() {
        Entry s = stored();
        Entry cut =
                Entry.value(s.key(), s.version(), java.util.Arrays.copyOf(s.value(), HintFormat.VALUE_HEADER_SIZE - 1));

        assertThatThrownBy(() -> HintFormat.decode(cut, DIR)).isInstanceOf(CorruptionException.class);
    }

    @Test
    void tombstoneWithValueBytesIsRefused() {
        Entry s = stored();
        s.value()[1] = HintFormat.FLAG_TOMBSTONE;

        assertThatThrownBy(() -> HintFormat.decode(s, DIR))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("tombstone");
    }

    @Test
    void aTargetsKeysSortTogetherAndItsScanRangeHoldsOnlyThem() {
        byte[] start = HintFormat.targetStart("http://a:1");
        byte[] end = HintFormat.targetEnd("http://a:1");
        byte[] mine = HintFormat.key("http://a:1", Keys.utf8("\u00ff\u00ff"));
        byte[] longerUrl = HintFormat.key("http://a:10", new byte[0]);

        assertThat(java.util.Arrays.compareUnsigned(start, mine)).isNegative();
        assertThat(java.util.Arrays.compareUnsigned(mine, end)).isNegative();
        assertThat(java.util.Arrays.compareUnsigned(longerUrl, end))
                .as("http://a:10 is not http://a:1")
                .isPositive();
    }

    @Test
    void aLegacyHintIsReadWithTheTargetAtItsListPosition() throws CorruptionException {
        byte[] value = {1, 0, 8, 7, 6, 5, 4, 3, 2, 1, (byte) 0xD2, 0x04, 0, 0, 0, 0, 0, 0, 'v'};
        Entry legacy = Entry.value(new byte[] {0, 2, 'k'}, 77, value);

        assertThat(HintFormat.formatVersionOf(legacy)).isEqualTo(HintFormat.LEGACY_FORMAT_VERSION);
        Hint h = HintFormat.decodeLegacy(legacy, DIR, i -> i == 2 ? "http://c:3" : null);
        assertThat(h)
                .isEqualTo(new Hint(
                        "http://c:3", new Entry(Keys.utf8("k"), 77, 1234, Keys.utf8("v")), 0x0102030405060708L));
        assertThat(HintFormat.decodeLegacy(legacy, DIR, i -> null))
                .as("past the list's end")
                .isNull();
        assertThatThrownBy(() -> HintFormat.decode(legacy, DIR)).isInstanceOf(CorruptionException.class);
    }

    @Test
    void typedEntriesKeepTheirBit() throws CorruptionException {
        for (Entry e : TypedEntries.random(17, 60)) {
            Hint h = new Hint("http://10.0.0.3:8080", e, 42);
            Hint back = HintFormat.decode(HintFormat.encode(h), DIR);
            assertThat(back).isEqualTo(h);
            assertThat(back.entry().typed()).isEqualTo(e.typed());
        }
    }
}
