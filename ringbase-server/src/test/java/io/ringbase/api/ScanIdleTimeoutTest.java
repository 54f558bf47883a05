package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.MappedFiles;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.storage.lsm.compaction.CompactionOptions;
import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --scan-idle-timeout}: a client that asks for a range and stops reading has its
 * connection closed after the timeout, and the tables its scan held are released, so a compaction's
 * deleted inputs are unmapped then (seen in {@code /proc/self/maps}). A short timeout here; default 60 s.
 */
@IntegrationTest
class ScanIdleTimeoutTest {

    static final long TIMEOUT_MS = 500;

    @TempDir
    Path tmp;

    /** The deleted files of the data directory still mapped. */
    private List<String> deletedMappings() throws IOException {
        return MappedFiles.under(tmp.resolve("d")).stream()
                .filter(f -> f.endsWith("(deleted)"))
                .toList();
    }

    @Test
    void aClientThatStopsReadingIsClosedAndItsScanReleasesTheTables() throws Exception {
        LsmOptions options = LsmOptions.defaults(tmp.resolve("d"))
                .withMemtableBytes(8 << 20)
                .withCompaction(new CompactionOptions(32, 32, 32L << 20, 0.5, 1.5)); // compaction only when asked
        HttpServerConfig config =
                HttpServerConfig.defaults(0).withHost("127.0.0.1").withScanIdleTimeout(TIMEOUT_MS);
        try (LsmEngine engine = LsmEngine.open(options);
                ServerFixture http = new ServerFixture(config, engine)) {
            byte[] value = "v".repeat(1024).getBytes(StandardCharsets.UTF_8);
            long version = 1L << 40;
            for (int table = 0; table < 4; table++) { // 4 tables of 5,000 x 1 KiB: a 20 MB range
                for (int i = 0; i < 5_000; i++) {
                    engine.apply(Entry.value(Keys.utf8(String.format("k%06d", i * 4 + table)), ++version, value));
                }
                engine.flush();
            }
            try (Socket client = new Socket()) {
                client.setReceiveBufferSize(4096);
                client.connect(new InetSocketAddress("127.0.0.1", http.port));
                client.getOutputStream()
                        .write("GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                InputStream in = client.getInputStream();
                byte[] first = in.readNBytes(2048);
                assertThat(new String(first, StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");

                // the client stops reading; a compaction replaces the tables its scan still reads
                assertThat(engine.compactAll()).isEqualTo(4);
                assertThat(deletedMappings())
                        .as("the stalled scan pins the 4 compacted inputs")
                        .hasSize(4);

                // the client reads no more: after the timeout the server gives up on it, and its scan lets the
                // compacted tables go
                await().atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> deletedMappings().isEmpty());
                client.setSoTimeout(10_000);
                long drained = 0;
                boolean closed;
                try {
                    byte[] buf = new byte[64 * 1024];
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        drained += n;
                    }
                    closed = true;
                } catch (SocketTimeoutException e) {
                    closed = false; // the server kept the connection: a complete response would end here too
                } catch (java.net.SocketException e) {
                    closed = true; // reset by the server's close
                }
                assertThat(closed).as("the server closed the connection").isTrue();
                assertThat(first.length + drained)
                        .as("the response was cut short, not completed")
                        .isLessThan(20L * 5_000 * 1024);
            }
            assertThat(deletedMappings())
                    .as("the abandoned scan released its tables")
                    .isEmpty();
            assertThat(http.get("/v0/entity?id=k000001").statusCode())
                    .as("the node goes on")
                    .isEqualTo(200);
        }
    }
}
