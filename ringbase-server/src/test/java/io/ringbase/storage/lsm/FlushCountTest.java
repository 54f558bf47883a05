package io.ringbase.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.testing.MemoryTempDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flush that {@link LsmEngine#flush()} waited for is in the engine's figures when it returns: the flush
 * thread counts it before it wakes the waiters, so metrics and the admin API's answer are not one behind.
 */
@Timeout(120)
class FlushCountTest {

    @TempDir(factory = MemoryTempDir.class)
    Path dir;

    @Test
    void everyFlushWaitedForIsCountedWhenFlushReturns() throws Exception {
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir))) {
            long before = engine.stats().flushes();
            for (int i = 1; i <= 300; i++) {
                engine.apply(Entry.value(Keys.utf8("k" + i), i, "v".getBytes(StandardCharsets.UTF_8)));
                engine.flush();
                assertThat(engine.stats().flushes())
                        .as("flushes counted after flush %d returned", i)
                        .isEqualTo(before + i);
            }
        }
    }
}
