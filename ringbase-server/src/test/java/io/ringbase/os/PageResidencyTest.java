package io.ringbase.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link PageResidency} on real mappings: one just written, one of a hole never read. */
class PageResidencyTest {

    @TempDir
    Path dir;

    @Test
    void aFileJustWrittenIsInThePageCache() throws Exception {
        assumeTrue(NativeFile.available(), "Linux only");
        Path file = dir.resolve("written");
        byte[] bytes = new byte[1 << 20];
        java.util.Arrays.fill(bytes, (byte) 7);
        Files.write(file, bytes);
        try (Arena arena = Arena.ofConfined();
                FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length, arena);
            assertThat(PageResidency.residentFraction(mapped)).isEqualTo(1.0);
        }
    }

    @Test
    void aHoleNeverReadIsNotAndReadingHalfOfItMakesHalfResident() throws Exception {
        assumeTrue(NativeFile.available(), "Linux only");
        Path file = dir.resolve("sparse");
        long size = 64L << 20;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size); // a hole: nothing of it is in the page cache until read
        }
        try (Arena arena = Arena.ofConfined();
                FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            assertThat(PageResidency.residentFraction(mapped)).isLessThan(0.01);
            ByteBuffer buf = ByteBuffer.allocate(1 << 20);
            for (long pos = 0; pos < size / 2; pos += buf.capacity()) {
                buf.clear();
                ch.read(buf, pos); // a read of a hole caches zero pages
            }
            assertThat(PageResidency.residentFraction(mapped)).isBetween(0.49, 0.51 + readAheadFraction(size));
            assertThat(PageResidency.residentFraction(mapped.asSlice(0, size / 4)))
                    .isEqualTo(1.0);
        }
    }

    @Test
    void anEmptyRegionIsResidentAndAnUnalignedOneUnknown() {
        assertThat(PageResidency.residentFraction(MemorySegment.NULL)).isEqualTo(1.0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(3 * 4096, 4096);
            assumeTrue(NativeFile.available(), "Linux only");
            assertThat(PageResidency.residentFraction(s)).isEqualTo(1.0); // allocated memory is zeroed: touched
            assertThat(PageResidency.residentFraction(s.asSlice(1))).isEqualTo(-1);
        }
    }

    /** What the kernel's read-ahead after the last read may add, as a fraction of {@code size}. */
    private static double readAheadFraction(long size) {
        return (8.0 * 2 * (1 << 20)) / size; // up to twice the 8 MiB read_ahead_kb seen on this project's VM
    }
}
