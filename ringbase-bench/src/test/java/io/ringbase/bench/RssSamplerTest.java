package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RssSamplerTest {

    /** The memory lines of a node's /proc/<pid>/status (Linux 6.x), with the lines around them. */
    private static String status(long anonKb, long fileKb) {
        return """
                Name:\tjava
                Umask:\t0022
                State:\tS (sleeping)
                Pid:\t28870
                VmPeak:\t 3712436 kB
                VmHWM:\t  144208 kB
                VmRSS:\t  144208 kB
                RssAnon:\t  %d kB
                RssFile:\t   %d kB
                RssShmem:\t       0 kB
                VmData:\t  318044 kB
                Threads:\t34
                """.formatted(anonKb, fileKb);
    }

    @Test
    void readsAnonymousAndFileRssInKilobytes() throws IOException {
        assertThat(RssSampler.parse(status(114348, 29860))).isEqualTo(new RssSampler.Rss(114348, 29860));
    }

    @Test
    void aStatusWithoutRssLinesIsRefused() {
        assertThatThrownBy(() -> RssSampler.parse("Name:\tjava\nVmRSS:\t  144208 kB\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("RssAnon");
    }

    @Test
    void keepsEachPeakApartAcrossSamples(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("status");
        RssSampler s = new RssSampler(f);
        Files.writeString(f, status(100_000, 30_000));
        s.sample();
        Files.writeString(f, status(180_000, 20_000));
        s.sample();
        Files.writeString(f, status(150_000, 25_000));
        s.sample();
        assertThat(s.peak()).isEqualTo(new RssSampler.Rss(180_000, 30_000));
    }

    @Test
    void noSampleIsAnError(@TempDir Path dir) {
        assertThatThrownBy(() -> new RssSampler(dir.resolve("gone")).peak()).isInstanceOf(IOException.class);
    }

    @Test
    void samplesThisProcess() throws IOException {
        RssSampler s = RssSampler.of(ProcessHandle.current().pid());
        s.sample();
        assertThat(s.peak().anonKb()).isPositive();
    }
}
