package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.cluster.rpc.ReplicaBatch;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Replica writes whose versions are too far ahead of the replica's clock are refused. */
@IntegrationTest
class InternalClockBoundTest {

    static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    static long aheadOfNow(long ms) {
        return HybridLogicalClock.fromPhysicalMs(System.currentTimeMillis() + ms);
    }

    @Test
    void aReplicaWriteWithAVersionNear2To63Is400AndNothingIsWritten() throws Exception {
        InMemoryEngine engine = new InMemoryEngine();
        try (ServerFixture http = new ServerFixture(engine)) {
            byte[] entry = InternalProtocol.encode(List.of(Entry.value(KEY, Long.MAX_VALUE - 1, new byte[] {1})));
            HttpResponse<byte[]> r = http.send("PUT", InternalProtocol.ENTRY, entry);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("maximum clock offset of 500 ms");
            assertThat(engine.get(KEY)).isNull();
            // the clock was not moved: a client write still gets a current version
            assertThat(http.put("/v0/entity?id=k", new byte[] {2}).statusCode()).isEqualTo(201);
            long physical = HybridLogicalClock.physicalMs(engine.get(KEY).version());
            assertThat(physical).isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis() + 1);
        }
    }

    @Test
    void aReplicaWriteASecondAheadIsRefusedAndOneWithinTheOffsetIsStored() throws Exception {
        InMemoryEngine engine = new InMemoryEngine();
        try (ServerFixture http = new ServerFixture(engine)) {
            byte[] ahead = InternalProtocol.encode(List.of(Entry.value(KEY, aheadOfNow(5_000), new byte[] {1})));
            assertThat(http.send("PUT", InternalProtocol.ENTRY, ahead).statusCode())
                    .isEqualTo(400);
            assertThat(engine.get(KEY)).isNull();
            long near = aheadOfNow(100);
            byte[] within = InternalProtocol.encode(List.of(Entry.value(KEY, near, new byte[] {1})));
            assertThat(http.send("PUT", InternalProtocol.ENTRY, within).statusCode())
                    .isEqualTo(201);
            assertThat(engine.get(KEY).version()).isEqualTo(near);
        }
    }

    @Test
    void aWriteTooFarAheadFailsAloneInItsBatchAndWritesNothing() throws Exception {
        InMemoryEngine engine = new InMemoryEngine();
        try (ServerFixture http = new ServerFixture(engine)) {
            byte[] other = "other".getBytes(StandardCharsets.UTF_8);
            byte[] batch = ReplicaBatch.encodeOps(List.of(
                    new ReplicaBatch.Read(other),
                    new ReplicaBatch.Write(Entry.value(KEY, aheadOfNow(60_000), new byte[] {1}))));
            HttpResponse<byte[]> r = http.send("POST", InternalProtocol.BATCH, batch);
            assertThat(r.statusCode()).isEqualTo(200);
            List<ReplicaBatch.Result> results = ReplicaBatch.decodeResults(r.body(), 2);
            assertThat(results.get(0)).isEqualTo(new ReplicaBatch.Found(null));
            assertThat(((ReplicaBatch.Failed) results.get(1)).reason()).contains("ahead");
            assertThat(engine.get(KEY)).isNull();
        }
    }
}
