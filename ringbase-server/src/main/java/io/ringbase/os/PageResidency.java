package io.ringbase.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * How much of a file mapping is in the page cache, from {@code mincore(2)} through the foreign function
 * API: one system call that faults nothing in. An SSTable reader asks it at open to choose its first read
 * path (a table out of the page cache starts on {@code pread}, see {@code storage.sstable.ReadPathGauge}).
 *
 * <p>Linux only: elsewhere, or if the call fails, {@link #residentFraction} answers {@code -1}.
 */
public final class PageResidency {

    private static final MethodHandle MINCORE;
    private static final long PAGE_SIZE;

    static {
        MethodHandle mincore = null;
        long pageSize = -1;
        try {
            mincore = Libc.function(
                    "mincore",
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
            MethodHandle getpagesize = Libc.function("getpagesize", FunctionDescriptor.of(ValueLayout.JAVA_INT));
            pageSize = (int) getpagesize.invokeExact();
        } catch (Throwable e) { // not Linux, no native access: callers fall back
            mincore = null;
        }
        MINCORE = pageSize > 0 ? mincore : null;
        PAGE_SIZE = pageSize;
    }

    private PageResidency() {}

    /**
     * The fraction of {@code region}'s pages that are in memory (for a file mapping: in the page cache).
     *
     * @param region part of a mapping that starts on a page boundary (a mapping from offset 0, or a
     *               slice of it at a page-aligned offset); its last page may be partial
     * @return a fraction in [0, 1]; 1 for an empty region; {@code -1} if it cannot be told (not Linux, an
     *         unaligned start, or {@code mincore} failed)
     */
    public static double residentFraction(MemorySegment region) {
        if (region.byteSize() == 0) {
            return 1;
        }
        if (MINCORE == null || region.address() % PAGE_SIZE != 0) {
            return -1;
        }
        long pages = (region.byteSize() + PAGE_SIZE - 1) / PAGE_SIZE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vec = arena.allocate((pages + 7) & ~7L, 8); // whole longs, the tail zeroed
            int rc = (int) MINCORE.invokeExact(region, region.byteSize(), vec);
            if (rc != 0) {
                return -1;
            }
            long resident = 0;
            for (long i = 0; i < vec.byteSize(); i += 8) {
                // the low bit of each byte says whether that page is resident; the others are reserved
                resident += Long.bitCount(vec.get(ValueLayout.JAVA_LONG_UNALIGNED, i) & 0x0101010101010101L);
            }
            return (double) resident / pages;
        } catch (Throwable e) {
            return -1;
        }
    }
}
