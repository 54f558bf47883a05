package io.ringbase.storage.lsm.sstable;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.TypedEntries;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The compact entry encoding of format version 3 blocks (docs/format.md, section 4.9), byte by byte. */
class CompactEntryTest {

    private static MemorySegment encoded(Entry e) {
        return MemorySegment.ofArray(EntryFormat.toBytes(e));
    }

    /**
     * Encodes {@code entries} back to back as one restart interval: each key sharing what it can with the
     * one before, each version a difference from the first entry's (stored whole).
     */
    private static MemorySegment block(List<Entry> entries, long[] ends) {
        MemorySegment block = MemorySegment.ofArray(new byte[4096]);
        long p = 0;
        byte[] previous = null;
        long base = 0;
        for (int i = 0; i < entries.size(); i++) {
            byte[] key = entries.get(i).key();
            int shared = 0;
            if (previous != null) {
                while (shared < Math.min(key.length, previous.length) && key[shared] == previous[shared]) {
                    shared++;
                }
            }
            MemorySegment src = encoded(entries.get(i));
            long before = p;
            p = CompactEntry.write(src, 0, shared, i == 0, base, block, p);
            assertThat(p - before).isEqualTo(CompactEntry.encodedSize(src, 0, shared, i == 0, base));
            if (i == 0) {
                base = entries.get(i).version();
            }
            ends[i] = p;
            previous = key;
        }
        return block;
    }

    @Test
    void entriesDecodeBackWithTheirWholeKeys() {
        List<Entry> entries = List.of(
                Entry.value(utf8("apple"), 7, utf8("red")),
                Entry.value(utf8("applesauce"), 8, new byte[300]), // a two-byte value length
                new Entry(utf8("apply"), 9, 1_700_000_000_000L, utf8("v")), // an expiry
                Entry.tombstone(utf8("b"), 10),
                Entry.value(utf8("c"), Long.MAX_VALUE, utf8("far from 7")), // a difference of 9 bytes
                Entry.value(utf8("d"), 1, utf8("older")), // a negative difference
                new Entry(new byte[0], Long.MAX_VALUE, Entry.NO_EXPIRY, new byte[0]));
        long[] ends = new long[entries.size()];
        MemorySegment block = block(entries.subList(0, 6), ends);
        CompactEntry d = new CompactEntry();
        long p = 0;
        for (int i = 0; i < 6; i++) {
            p = d.decode(block, p, ends[5], i == 0);
            assertThat(p).isEqualTo(ends[i]);
            MemorySegment out = d.expand();
            assertThat(EntryFormat.read(out, 0, d.expandedSize())).isEqualTo(entries.get(i));
            byte[] key = entries.get(i).key();
            assertThat(d.compareKey(key)).isZero();
            // unsigned byte order, and a key sorts before the longer keys it is a prefix of
            byte[] longer = java.util.Arrays.copyOf(key, key.length + 1);
            assertThat(d.compareKey(longer)).isNegative();
            assertThat(d.compareKey(java.util.Arrays.copyOf(key, key.length - 1)))
                    .isPositive();
            longer[key.length - 1] = (byte) 0xFF;
            assertThat(d.compareKey(longer)).isNegative();
        }
        // the restart point: 3 one-byte varints, flags, the whole version, the key, the value
        assertThat(ends[0]).isEqualTo(3 + 1 + 8 + 5 + 3);
        // "applesauce" after "apple" stores "sauce" only: varints of 1, 1, 2 bytes, flags, version 8 - 7 in 1 byte
        assertThat(ends[1] - ends[0]).isEqualTo(1 + 1 + 2 + 1 + 1 + 5 + 300);
        // an expiry adds its 8 bytes; none is stored without one
        assertThat(ends[2] - ends[1]).isEqualTo(3 + 1 + 1 + 8 + 1 + 1);
        MemorySegment empty = block(entries.subList(6, 7), new long[1]);
        d.decode(empty, 0, 3 + 1 + 8, true);
        assertThat(EntryFormat.read(d.expand(), 0, d.expandedSize())).isEqualTo(entries.get(6));
    }

    @Test
    void damagedEntriesAreRefused() {
        List<Entry> entries = List.of(Entry.value(utf8("key1"), 1, utf8("a")), Entry.value(utf8("key2"), 2, utf8("b")));
        long[] ends = new long[2];
        MemorySegment block = block(entries, ends);
        CompactEntry d = new CompactEntry();
        // the second entry shares 3 bytes and stores a version difference: decoded as a restart point, or
        // after nothing, it is refused
        assertThatThrownBy(() -> new CompactEntry().decode(block, ends[0], ends[1], true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a difference from none (a restart point)");
        assertThatThrownBy(() -> new CompactEntry().decode(block, ends[0], ends[1], false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a difference from no entry before it");
        CompactEntry keyless = new CompactEntry();
        keyless.decode(
                MemorySegment.ofArray(block(List.of(Entry.value(new byte[0], 5, utf8("x"))), new long[1])
                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)),
                0,
                3 + 1 + 8 + 1,
                true);
        assertThatThrownBy(() -> keyless.decode(block, ends[0], ends[1], false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("previous key of 0 bytes");
        // cut short: inside the header, inside the key, inside the value
        for (long limit : new long[] {2, 10, ends[0] - 1}) {
            assertThatThrownBy(() -> d.decode(block, 0, limit, true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("passes the end");
        }
        MemorySegment copy = MemorySegment.ofArray(block.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 0x14); // flags: an unknown bit (4; 3 is typed)
        assertThatThrownBy(() -> d.decode(copy, 0, ends[1], true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown entry flags");
        copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 0x05); // a tombstone with a 1-byte value
        assertThatThrownBy(() -> d.decode(copy, 0, ends[1], true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tombstone with value length 1");
        copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 1, (byte) 0xFF); // unshared: a varint that never ends
        copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 2, (byte) 0xFF);
        copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 0xFF);
        copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 4, (byte) 0xFF);
        copy.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 5, (byte) 0xFF);
        assertThatThrownBy(() -> d.decode(copy, 0, ends[1], true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("passes the end");
    }

    @Test
    void typedEntriesKeepTheirBitWhereverTheyFallInARestartInterval() {
        // the compact encoding's bit 2 is "whole version": the typed bit moves to bit 3 and back
        List<Entry> entries = TypedEntries.random(11, 24).stream()
                .sorted((a, b) -> java.util.Arrays.compareUnsigned(a.key(), b.key()))
                .toList();
        for (int from = 0; from < 8; from++) { // each entry once at a restart point, once after one
            List<Entry> run = entries.subList(from, from + 16);
            long[] ends = new long[run.size()];
            MemorySegment block = block(run, ends);
            CompactEntry d = new CompactEntry();
            long p = 0;
            for (int i = 0; i < run.size(); i++) {
                p = d.decode(block, p, ends[run.size() - 1], i == 0);
                Entry back = EntryFormat.read(d.expand(), 0, d.expandedSize());
                assertThat(back).isEqualTo(run.get(i));
                assertThat(back.typed()).isEqualTo(run.get(i).typed());
            }
        }
    }
}
