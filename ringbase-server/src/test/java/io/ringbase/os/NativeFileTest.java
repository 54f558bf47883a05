package io.ringbase.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NativeFile}: {@code pread(2)} through the foreign function API, and its errors. */
class NativeFileTest {

    @TempDir
    Path dir;

    @BeforeEach
    void linux() {
        assumeThat(System.getProperty("os.name")).startsWith("Linux");
    }

    @Test
    void readsExactlyTheBytesAtAPosition() throws IOException {
        byte[] content = new byte[3 * 1024 * 1024 + 17];
        new SplittableRandom(7).nextBytes(content);
        Path file = Files.write(dir.resolve("f"), content);
        assertThat(NativeFile.available()).isTrue();
        try (NativeFile f = NativeFile.open(file).orElseThrow();
                Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(content.length);
            int[][] reads = {{0, 1}, {4095, 2}, {123_456, 5000}, {0, content.length}, {content.length - 9, 9}};
            for (int[] r : reads) {
                f.read(r[0], buf, r[1]);
                assertThat(buf.asSlice(0, r[1]).toArray(ValueLayout.JAVA_BYTE))
                        .as("bytes [%d, +%d)", r[0], r[1])
                        .isEqualTo(Arrays.copyOfRange(content, r[0], r[0] + r[1]));
            }
        }
    }

    @Test
    void aReadPastTheEndOfTheFileFailsNamingTheShortfall() throws IOException {
        Path file = Files.write(dir.resolve("short"), new byte[100]);
        try (NativeFile f = NativeFile.open(file).orElseThrow();
                Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> f.read(90, arena.allocate(20), 20))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("10 bytes short");
        }
    }

    @Test
    void openingAMissingFileFailsWithItsErrno() {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> NativeFile.open(missing))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("ENOENT");
    }

    @Test
    void aReadOfAClosedDescriptorFailsWithEbadf() throws IOException {
        Path file = Files.write(dir.resolve("closed"), new byte[10]);
        NativeFile f = NativeFile.open(file).orElseThrow();
        f.close();
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> f.read(0, arena.allocate(10), 10))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("EBADF");
        }
    }
}
