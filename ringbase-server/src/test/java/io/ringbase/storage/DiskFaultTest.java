package io.ringbase.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileSystemException;
import org.junit.jupiter.api.Test;

class DiskFaultTest {

    @Test
    void classifiesByTheJdkMessageAnywhereInTheCauseChain() {
        assertThat(DiskFault.classify(new IOException("No space left on device")))
                .isEqualTo(DiskFault.DISK_FULL);
        assertThat(DiskFault.classify(new IOException("Disk quota exceeded"))).isEqualTo(DiskFault.DISK_FULL);
        assertThat(DiskFault.classify(new FileSystemException("/d/wal-000001.log", null, "Too many open files")))
                .isEqualTo(DiskFault.TOO_MANY_FILES);
        assertThat(DiskFault.classify(new IOException(
                        "WAL segment x failed", new IOException("wrapped", new IOException("Input/output error")))))
                .isEqualTo(DiskFault.IO_ERROR);
        assertThat(DiskFault.classify(new IOException("something else"))).isEqualTo(DiskFault.OTHER);
        assertThat(DiskFault.classify(new IOException((String) null))).isEqualTo(DiskFault.OTHER);
    }
}
