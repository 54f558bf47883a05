package io.ringbase.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The content type prefix of typed entries and the flag bit 2 of the entry encoding (docs/format.md). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ContentTypeTest {

    @Test
    void validTypesPassAndParametersAreKept() {
        for (String t : List.of("text/plain", "text/plain; charset=utf-8", "application/vnd.a+json", "a/b")) {
            assertThat(ContentType.invalidReason(t)).as(t).isNull();
        }
        assertThat(ContentType.invalidReason("t/" + "x".repeat(125))).isNull(); // 127 bytes
    }

    @Test
    void invalidTypesHaveOneReason() {
        for (String t : List.of(
                "",
                "text",
                "/plain",
                "text/",
                "text/plain/x",
                "t\u00e9xt/plain",
                "text/pl ain",
                "te(xt/plain",
                "t/" + "x".repeat(126),
                "text/plain;\u0001")) {
            assertThat(ContentType.invalidReason(t)).as(t).isNotNull();
        }
    }

    @Test
    void octetStreamIsTheDefault() {
        assertThat(ContentType.isDefault("Application/Octet-Stream")).isTrue();
        assertThat(ContentType.isDefault("application/octet-stream; x=y")).isFalse();
    }

    @Test
    void prefixIsTheLengthByteThenTheTypeThenTheValue() {
        byte[] stored = ContentType.prefixed("a/b", new byte[] {9, 8});
        assertThat(stored).containsExactly(3, 'a', '/', 'b', 9, 8);
        assertThat(ContentType.typeOf(stored)).isEqualTo("a/b");
        assertThat(ContentType.bare(stored)).containsExactly(9, 8);
    }

    @Test
    void aBadPrefixIsRefused() {
        assertThatThrownBy(() -> ContentType.prefixLength(new byte[] {0, 1})).hasMessageContaining("length 0");
        assertThatThrownBy(() -> ContentType.prefixLength(new byte[] {(byte) 128, 1}))
                .hasMessageContaining("length 128");
        assertThatThrownBy(() -> ContentType.prefixLength(new byte[] {5, 'a', '/'}))
                .hasMessageContaining("length 5");
        // a CR or LF would split the response header the type is served in
        assertThatThrownBy(() -> ContentType.prefixLength(new byte[] {3, 'a', '\n', 'b'}))
                .hasMessageContaining("0xa not printable");
        assertThatThrownBy(() -> new Entry(new byte[] {1}, 1, 0, new byte[0], true))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Entry(new byte[] {1}, 1, 0, null, true)).hasMessageContaining("tombstone");
    }

    @Test
    void entryFormatKeepsTheTypedBit() {
        for (Entry e : TypedEntries.random(7, 200)) {
            byte[] b = EntryFormat.toBytes(e);
            assertThat(b[0] & EntryFormat.FLAG_TYPED).isEqualTo(e.typed() ? 4 : 0);
            Entry back = EntryFormat.read(MemorySegment.ofArray(b), 0, b.length);
            assertThat(back).isEqualTo(e);
            assertThat(back.typed()).isEqualTo(e.typed());
        }
    }

    @Test
    void entryFormatRefusesATypedEntryWithABadPrefixOrATypedTombstone() {
        byte[] b = EntryFormat.toBytes(
                new Entry(new byte[] {'k'}, 1, 0, ContentType.prefixed("a/b", new byte[] {1}), true));
        b[EntryFormat.HEADER_SIZE + 1] = 100; // the length byte now passes the value's end
        assertThatThrownBy(() -> EntryFormat.read(MemorySegment.ofArray(b), 0, b.length))
                .hasMessageContaining("content type length 100");
        byte[] t = EntryFormat.toBytes(Entry.tombstone(new byte[] {'k'}, 1));
        t[0] |= EntryFormat.FLAG_TYPED;
        assertThatThrownBy(() -> EntryFormat.read(MemorySegment.ofArray(t), 0, t.length))
                .hasMessageContaining("typed tombstone");
    }

    @Test
    void cursorServesTheBareValueAndTheType() {
        Entry typed = new Entry(
                new byte[] {'k'},
                3,
                0,
                ContentType.prefixed("text/plain; charset=utf-8", "hi".getBytes(StandardCharsets.UTF_8)),
                true);
        ReadCursor c = new ReadCursor();
        c.setCopy(typed);
        assertThat(c.contentType()).isEqualTo("text/plain; charset=utf-8");
        assertThat(c.segment()
                        .asSlice(c.bareValueOffset(), c.bareValueLength())
                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo("hi".getBytes(StandardCharsets.UTF_8));
        c.setCopy(Entry.value(new byte[] {'k'}, 3, new byte[] {4, 'a', '/', 'b'}));
        assertThat(c.contentType()).isNull();
        assertThat(c.bareValueLength()).isEqualTo(4);
        assertThat(c.bareValueOffset()).isEqualTo(c.valueOffset());
    }

    @Test
    void theSameBytesTypedAndUntypedOrderTheSameEncodedAndDecoded() {
        byte[] stored = ContentType.prefixed("a/b", new byte[] {1});
        Entry typed = new Entry(new byte[] {'k'}, 5, 0, stored, true);
        Entry untyped = new Entry(new byte[] {'k'}, 5, 0, stored.clone());
        assertThat(Entry.compareNewness(typed, untyped)).isPositive();
        MemorySegment a = MemorySegment.ofArray(EntryFormat.toBytes(typed));
        MemorySegment b = MemorySegment.ofArray(EntryFormat.toBytes(untyped));
        assertThat(EntryFormat.compareNewness(a, 0, b, 0)).isPositive();
        assertThat(EntryFormat.compareNewness(b, 0, a, 0)).isNegative();
    }
}
