package io.ringbase.storage.lsm;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.ReadCursor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A point read through a reused {@link ReadCursor} allocates nothing on the heap once warm, wherever the
 * entry lies (the active memtable, a compressed SSTable block, nowhere), as the read path promises
 * ({@link ReadCursor}'s class comment): the cursor keeps the engine's block buffers between reads.
 */
class ReadAllocationTest {

    private static final int WARM_READS = 300_000;
    private static final int MEASURED_READS = 200_000;

    @TempDir
    Path dir;

    @Test
    void aWarmReadThroughAReusedCursorAllocatesNothing() throws IOException {
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            byte[] compressible = utf8("value-".repeat(20));
            for (int i = 0; i < 5_000; i++) {
                engine.apply(Entry.value(utf8("table-" + i), 10 + i, compressible));
            }
            engine.flush();
            for (int i = 0; i < 500; i++) {
                engine.apply(Entry.value(utf8("memtable-" + i), 100_000 + i, utf8("v" + i)));
            }
            byte[][] keys = new byte[1_000][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = switch (i % 3) {
                    case 0 -> utf8("table-" + (i * 7 % 5_000));
                    case 1 -> utf8("memtable-" + (i % 500));
                    default -> utf8("absent-" + i);
                };
            }
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            try (ReadCursor cursor = new ReadCursor()) {
                long found = reads(engine, cursor, keys, WARM_READS);
                long before = threads.getCurrentThreadAllocatedBytes();
                found += reads(engine, cursor, keys, MEASURED_READS);
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                assertThat(found).isGreaterThan((WARM_READS + MEASURED_READS) / 2);
                assertThat((double) allocated / MEASURED_READS)
                        .as("heap bytes per read (%d in all)", allocated)
                        .isLessThan(1.0);
            }
        }
    }

    /** {@code n} reads of {@code keys} in turn, each copying out one byte of the value; how many found one. */
    private static long reads(LsmEngine engine, ReadCursor cursor, byte[][] keys, int n) throws IOException {
        long found = 0;
        for (int i = 0; i < n; i++) {
            if (engine.read(keys[i % keys.length], cursor)) {
                found += cursor.valueLength() > 0 ? 1 : 0;
            }
            cursor.close();
        }
        return found;
    }
}
