package io.ringbase.storage.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.storage.CorruptionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ReadFaultTest {

    private static final Path FILE = Path.of("sst-00000000000000000007.sst");

    @Test
    void theJvmsErrorForAFaultingMappedAccessIsADiskFault() {
        assertThat(ReadFault.isDiskFault(new InternalError("a fault occurred in an unsafe memory access operation")))
                .isTrue();
        assertThat(ReadFault.isDiskFault(new InternalError(
                        "a fault occurred in a recent unsafe memory access operation in compiled " + "Java code")))
                .isTrue();
        assertThat(ReadFault.isDiskFault(new InternalError("something else"))).isFalse();
        assertThat(ReadFault.isDiskFault(new InternalError())).isFalse();
    }

    @Test
    void eioIsADiskFaultAndOtherFailuresAreNot() {
        assertThat(ReadFault.isDiskFault(new IOException("Input/output error"))).isTrue();
        assertThat(ReadFault.isDiskFault(new UncheckedIOException(new IOException("Input/output error"))))
                .isTrue();
        assertThat(ReadFault.isDiskFault(new IOException("Bad file descriptor")))
                .isFalse();
        assertThat(ReadFault.isDiskFault(new CorruptionException(FILE, 3, "Input/output error")))
                .as("damage already")
                .isFalse();
        assertThat(ReadFault.isDiskFault(new IllegalStateException("closed"))).isFalse();
    }

    @Test
    void damageNamesTheTableAndKeepsTheCause() {
        InternalError sigbus = new InternalError("a fault occurred in an unsafe memory access operation");
        CorruptionException c = ReadFault.damage(FILE, sigbus);
        assertThat(c.file()).isEqualTo(FILE);
        assertThat(c.offset()).isEqualTo(-1);
        assertThat(c).hasCause(sigbus).hasMessageContaining("EIO");
    }
}
