package io.ringbase.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** XXH64 against the specification's vector, and the same hash of a key wherever it lies. */
class XxHash64Test {

    @Test
    void theEmptyInputHashesToTheSpecifiedValue() {
        assertThat(XxHash64.hash(new byte[0])).isEqualTo(0xEF46DB3751D8E999L);
    }

    @Test
    void aKeyHashesTheSameInAnArrayAndAtAnyOffsetOfANativeSegment() {
        SplittableRandom random = new SplittableRandom(7);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment native_ = arena.allocate(256);
            for (int length = 0; length <= 100; length++) {
                byte[] key = new byte[length];
                random.nextBytes(key);
                for (int offset : new int[] {0, 1, 3, 7, 13}) {
                    MemorySegment.copy(key, 0, native_, ValueLayout.JAVA_BYTE, offset, length);
                    assertThat(XxHash64.hash(native_, offset, length))
                            .as("length %d at %d", length, offset)
                            .isEqualTo(XxHash64.hash(key));
                }
            }
        }
    }
}
