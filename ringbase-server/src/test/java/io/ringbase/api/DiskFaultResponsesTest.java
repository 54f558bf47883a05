package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageFaultException;
import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A write the disk refused is answered 507 (disk full) or 503 (other disk faults) with the cause as the
 * body, never a bare 500; reads go on; the internal ping says the node cannot write.
 */
@IntegrationTest
class DiskFaultResponsesTest {

    /** An engine whose writes fail with {@code failure} and which says so in its health. */
    private static InMemoryEngine failingWith(IOException failure) {
        return new InMemoryEngine() {
            @Override
            public void apply(Entry entry) throws IOException {
                throw failure;
            }

            @Override
            public String unwritableReason() {
                return failure.getMessage();
            }
        };
    }

    @Test
    void aWriteOnAFullDiskIs507WithTheCause() throws Exception {
        StorageFaultException full =
                new StorageFaultException("WAL append to wal-7.log", new IOException("No space left on device"));
        try (ServerFixture http = new ServerFixture(failingWith(full))) {
            HttpResponse<byte[]> put = http.put("/v0/entity?id=k", new byte[] {1});
            assertThat(put.statusCode()).isEqualTo(507);
            assertThat(new String(put.body(), StandardCharsets.UTF_8))
                    .isEqualTo("disk full: WAL append to wal-7.log: No space left on device\n");
            assertThat(http.delete("/v0/entity?id=k").statusCode()).isEqualTo(507);
            assertThat(http.get("/v0/entity?id=k").statusCode()).isEqualTo(404); // reads are served
        }
    }

    @Test
    void anIoErrorIs503WithTheCauseAndRetryAfter() throws Exception {
        StorageFaultException eio =
                new StorageFaultException("flush of WAL segment 9", new IOException("Input/output error"));
        try (ServerFixture http = new ServerFixture(failingWith(eio))) {
            HttpResponse<byte[]> put = http.put("/v0/entity?id=k", new byte[] {1});
            assertThat(put.statusCode()).isEqualTo(503);
            assertThat(put.headers().firstValue("retry-after")).hasValue("1");
            assertThat(new String(put.body(), StandardCharsets.UTF_8))
                    .isEqualTo("disk I/O error: flush of WAL segment 9: Input/output error\n");
        }
    }

    @Test
    void thePingSaysWhenTheEngineCannotWriteSoCoordinatorsStopSendingItWrites() throws Exception {
        StorageFaultException full =
                new StorageFaultException("WAL append to wal-7.log", new IOException("No space left on device"));
        try (ServerFixture http = new ServerFixture(failingWith(full))) {
            HttpResponse<byte[]> ping = http.get(InternalProtocol.PING);
            assertThat(ping.statusCode()).as("up for reads").isEqualTo(200);
            assertThat(InternalProtocol.pingUnwritableReason(ping.body())).startsWith("disk full");
        }
        try (ServerFixture http = new ServerFixture(new InMemoryEngine())) {
            HttpResponse<byte[]> ping = http.get(InternalProtocol.PING);
            assertThat(ping.statusCode()).isEqualTo(200);
            assertThat(InternalProtocol.pingUnwritableReason(ping.body())).isNull();
        }
    }
}
