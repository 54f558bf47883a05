package io.ringbase.storage.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.sstable.BloomFilter.Layout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BloomFilterTest {

    private static final Path FILE = Path.of("test.sst");

    @Test
    void hashIsXxh64WithSeedZero() {
        // Reference values from libxxhash 0.8.1 (XXH64(data, len, 0)).
        assertThat(BloomFilter.hash(new byte[0])).isEqualTo(0xEF46DB3751D8E999L);
        assertThat(BloomFilter.hash(Keys.utf8("a"))).isEqualTo(0xD24EC4F1A98C6E5BL);
        assertThat(BloomFilter.hash(Keys.utf8("abc"))).isEqualTo(0x44BC2CF5AD770999L);
        assertThat(BloomFilter.hash(Keys.utf8("key-00000042"))).isEqualTo(0xCDD8C97061D80A3DL);
        assertThat(BloomFilter.hash(sequence(40))).isEqualTo(0xF5DA40F1B11741E9L);
        assertThat(BloomFilter.hash(sequence(100))).isEqualTo(0x6AC1E58032166597L);
    }

    @Test
    void layoutFollowsTheFormatVersion() {
        assertThat(Layout.of(1)).isEqualTo(Layout.STANDARD);
        assertThat(Layout.of(3)).isEqualTo(Layout.STANDARD);
        assertThat(Layout.of(4)).isEqualTo(Layout.BLOCKED);
    }

    @Test
    void falsePositiveRatesAreThoseOfTheFormat() {
        // section 4.4: ~0.82% at 10 bits per key and 7 probes; section 4.10: ~0.64% at 11 bits and 6 probes
        assertThat(falsePositiveRate(Layout.STANDARD)).isBetween(0.006, 0.011);
        assertThat(falsePositiveRate(Layout.BLOCKED)).isBetween(0.0045, 0.0085);
    }

    private static double falsePositiveRate(Layout layout) {
        int n = 100_000;
        try (var builder = new BloomFilter.Builder(n, layout)) {
            for (int i = 0; i < n; i++) {
                builder.add(Keys.utf8("present-" + i));
            }
            BloomFilter filter = read(builder, layout);
            int falsePositives = 0;
            for (int i = 0; i < n; i++) {
                if (filter.mightContain(Keys.utf8("absent-" + i))) {
                    falsePositives++;
                }
            }
            return falsePositives / (double) n;
        }
    }

    /** Standard lookups carry the remainder from one probe to the next; blocked ones multiply: both must test the documented bits. */
    @ParameterizedTest
    @EnumSource(Layout.class)
    void lookupsProbeTheBitsOfTheFormatsFormula(Layout layout) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        for (int expected : new int[] {0, 7, 1_000, 12_345}) {
            // half full, and nearly all bits set (at least 400 keys: a blocked filter has at least 512 bits)
            for (int added : new int[] {expected / 2, 4 * expected + 400}) {
                try (var builder = new BloomFilter.Builder(expected, layout)) {
                    for (int i = 0; i < added; i++) {
                        builder.add(Keys.utf8("k" + i));
                    }
                    BloomFilter filter = read(builder, layout);
                    MemorySegment section = builder.section();
                    long m = BloomFilter.bitCountFor(expected, layout);
                    int agreedTrue = 0;
                    for (int t = 0; t < 100_000; t++) {
                        long h = random.nextLong();
                        boolean reference = true;
                        for (int i = 0; i < layout.probes && reference; i++) {
                            long bit = layout == Layout.STANDARD
                                    ? BloomFilter.probeBit(h, i, m)
                                    : 8 * BloomFilter.blockByteOffset(h, m) + BloomFilter.blockProbeBit(h, i);
                            reference = isSet(section, bit);
                        }
                        assertThat(filter.mightContainHash(h))
                                .as("h %x, %d of %d", h, added, expected)
                                .isEqualTo(reference);
                        if (reference) {
                            agreedTrue++;
                        }
                    }
                    if (added > expected) {
                        assertThat(agreedTrue)
                                .as("hashes passing every probe, filter of %d", expected)
                                .isGreaterThan(1_000);
                    }
                }
            }
        }
    }

    @Test
    void theBlockedRuleMatchesValuesWorkedOutByHand() {
        // docs/format.md 4.10 for XXH64("abc") = 0x44BC2CF5AD770999 in a filter of 1,000 blocks, computed
        // apart from this code: block (0xAD770999 * 1000) >> 32 = 677, at byte 43,328; g_0 = 0x44BC2CF5
        long h = 0x44BC2CF5AD770999L;
        assertThat(BloomFilter.blockByteOffset(h, 512 * 1000)).isEqualTo(43_328);
        int[] bits = new int[6];
        for (int i = 0; i < 6; i++) {
            bits[i] = BloomFilter.blockProbeBit(h, i);
        }
        assertThat(bits).containsExactly(137, 247, 506, 103, 194, 300);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void addedKeysAreNeverReportedAbsent(Layout layout) {
        int n = 100_000;
        try (var builder = new BloomFilter.Builder(n, layout)) {
            for (int i = 0; i < n; i++) {
                builder.add(Keys.utf8("present-" + i));
            }
            BloomFilter filter = read(builder, layout);
            for (int i = 0; i < n; i++) {
                assertThat(filter.mightContain(Keys.utf8("present-" + i)))
                        .as("key %d", i)
                        .isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void emptyFilterRejectsEverything(Layout layout) {
        try (var builder = new BloomFilter.Builder(0, layout)) {
            assertThat(builder.section().byteSize()).isEqualTo(BloomFilter.HEADER_SIZE + layout.bitMultiple / 8);
            assertThat(read(builder, layout).mightContain(Keys.utf8("x"))).isFalse();
        }
    }

    @Test
    void sizeIsTenOrElevenBitsPerKeyRoundedToWordsOrBlocks() {
        assertThat(BloomFilter.bitCountFor(0, Layout.STANDARD)).isEqualTo(64);
        assertThat(BloomFilter.bitCountFor(7, Layout.STANDARD)).isEqualTo(128);
        assertThat(BloomFilter.bitCountFor(1_000_000, Layout.STANDARD)).isEqualTo(10_000_000);
        assertThat(BloomFilter.bitCountFor(Long.MAX_VALUE, Layout.STANDARD)).isEqualTo(BloomFilter.MAX_BITS);
        assertThat(BloomFilter.bitCountFor(0, Layout.BLOCKED)).isEqualTo(512);
        assertThat(BloomFilter.bitCountFor(7, Layout.BLOCKED)).isEqualTo(512);
        assertThat(BloomFilter.bitCountFor(1_000_000, Layout.BLOCKED)).isEqualTo(11_000_320);
        assertThat(BloomFilter.bitCountFor(Long.MAX_VALUE, Layout.BLOCKED)).isEqualTo(BloomFilter.MAX_BITS);
    }

    @Test
    void aBlockedSectionWhoseBitsAreNotWholeBlocksIsCorrupt() {
        try (var builder = new BloomFilter.Builder(7, Layout.STANDARD)) { // 128 bits
            assertThatThrownBy(() -> BloomFilter.read(FILE, builder.section(), 0, Layout.BLOCKED))
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("invalid Bloom bit count 128");
        }
    }

    private static boolean isSet(MemorySegment section, long bit) {
        return (section.get(ValueLayout.JAVA_BYTE, BloomFilter.HEADER_SIZE + (bit >>> 3)) & (1 << (bit & 7))) != 0;
    }

    private static BloomFilter read(BloomFilter.Builder builder, Layout layout) {
        try {
            return BloomFilter.read(FILE, builder.section(), 0, layout);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] sequence(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }
}
