package io.ringbase.storage.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Keys;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

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
    void falsePositiveRateIsBelowTwoPercentAtExpectedEntries() {
        int n = 100_000;
        try (var builder = new BloomFilter.Builder(n)) {
            for (int i = 0; i < n; i++) {
                builder.add(Keys.utf8("present-" + i));
            }
            BloomFilter filter = read(builder);
            int falsePositives = 0;
            for (int i = 0; i < n; i++) {
                if (filter.mightContain(Keys.utf8("absent-" + i))) {
                    falsePositives++;
                }
            }
            assertThat(falsePositives / (double) n).isLessThan(0.02);
        }
    }

    @Test
    void carriedRemaindersProbeTheBitsOfTheFormatsFormula() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        for (int expected : new int[] {0, 7, 1_000, 12_345}) {
            for (int added : new int[] {expected / 2, 4 * expected + 40}) { // half full, and nearly all bits set
                try (var builder = new BloomFilter.Builder(expected)) {
                    for (int i = 0; i < added; i++) {
                        builder.add(Keys.utf8("k" + i));
                    }
                    BloomFilter filter = read(builder);
                    java.lang.foreign.MemorySegment section = builder.section();
                    int agreedTrue = 0;
                    for (int t = 0; t < 100_000; t++) {
                        long h = random.nextLong();
                        boolean reference = true;
                        for (int i = 0; i < BloomFilter.PROBES && reference; i++) {
                            long bit = BloomFilter.probeBit(h, i, BloomFilter.bitCountFor(expected));
                            reference = (section.get(java.lang.foreign.ValueLayout.JAVA_BYTE,
                                    BloomFilter.HEADER_SIZE + (bit >>> 3)) & (1 << (bit & 7))) != 0;
                        }
                        assertThat(filter.mightContainHash(h)).as("h %x, %d of %d", h, added, expected).isEqualTo(reference);
                        if (reference) {
                            agreedTrue++;
                        }
                    }
                    if (added > expected) {
                        assertThat(agreedTrue).as("hashes passing every probe, filter of %d", expected).isGreaterThan(1_000);
                    }
                }
            }
        }
    }

    @Test
    void addedKeysAreNeverReportedAbsent() {
        int n = 100_000;
        try (var builder = new BloomFilter.Builder(n)) {
            for (int i = 0; i < n; i++) {
                builder.add(Keys.utf8("present-" + i));
            }
            BloomFilter filter = read(builder);
            for (int i = 0; i < n; i++) {
                assertThat(filter.mightContain(Keys.utf8("present-" + i))).as("key %d", i).isTrue();
            }
        }
    }

    @Test
    void emptyFilterRejectsEverything() {
        try (var builder = new BloomFilter.Builder(0)) {
            assertThat(builder.section().byteSize()).isEqualTo(BloomFilter.HEADER_SIZE + 64 / 8);
            assertThat(read(builder).mightContain(Keys.utf8("x"))).isFalse();
        }
    }

    @Test
    void sizeIsTenBitsPerKeyRoundedToWords() {
        assertThat(BloomFilter.bitCountFor(0)).isEqualTo(64);
        assertThat(BloomFilter.bitCountFor(7)).isEqualTo(128);
        assertThat(BloomFilter.bitCountFor(1_000_000)).isEqualTo(10_000_000);
        assertThat(BloomFilter.bitCountFor(Long.MAX_VALUE)).isEqualTo(BloomFilter.MAX_BITS);
    }

    private static BloomFilter read(BloomFilter.Builder builder) {
        try {
            return BloomFilter.read(FILE, builder.section(), 0);
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
