package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.cluster.rpc.ReplicaBatch;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The replica side of a batch: its answer stays within its byte budget, and a failed operation fails alone. */
@IntegrationTest
class ReplicaBatchEndpointTest {

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readsPastTheAnswerBudgetAreAnsweredTooLargeAndTheFirstAlwaysFits() throws Exception {
        InMemoryEngine engine = new InMemoryEngine();
        for (int i = 0; i < 3; i++) {
            engine.apply(Entry.value(b("big" + i), 10, new byte[600 * 1024]));
        }
        engine.apply(Entry.value(b("small"), 10, b("v")));
        try (ServerFixture http = new ServerFixture(engine)) {
            List<ReplicaBatch.Op> ops = new ArrayList<>();
            for (String k : List.of("big0", "big1", "small", "big2", "absent")) {
                ops.add(new ReplicaBatch.Read(b(k)));
            }
            HttpResponse<byte[]> r = http.send("POST", InternalProtocol.BATCH, ReplicaBatch.encodeOps(ops));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body().length).isLessThanOrEqualTo(ReplicaBatch.MAX_ANSWER_BYTES + 700 * 1024);
            List<ReplicaBatch.Result> results = ReplicaBatch.decodeResults(r.body(), ops.size());
            assertThat(((ReplicaBatch.Found) results.get(0)).entry().value()).hasSize(600 * 1024);
            assertThat(results.get(1)).isInstanceOf(ReplicaBatch.TooLarge.class);
            assertThat(((ReplicaBatch.Found) results.get(2)).entry().value()).isEqualTo(b("v"));
            assertThat(results.get(3)).isInstanceOf(ReplicaBatch.TooLarge.class);
            assertThat(((ReplicaBatch.Found) results.get(4)).entry()).isNull();
        }
    }

    @Test
    void aWriteTheEngineFailsFailsAloneInItsBatch() throws Exception {
        InMemoryEngine engine = new InMemoryEngine() {
            @Override
            public void apply(Entry entry) throws java.io.IOException {
                if (new String(entry.key(), StandardCharsets.UTF_8).equals("bad")) {
                    throw new java.io.IOException("No space left on device");
                }
                super.apply(entry);
            }
        };
        try (ServerFixture http = new ServerFixture(engine)) {
            List<ReplicaBatch.Op> ops = List.of(
                    new ReplicaBatch.Write(Entry.value(b("a"), 5, b("1"))),
                    new ReplicaBatch.Write(Entry.value(b("bad"), 5, b("2"))),
                    new ReplicaBatch.Write(Entry.value(b("c"), 5, b("3"))));
            HttpResponse<byte[]> r = http.send("POST", InternalProtocol.BATCH, ReplicaBatch.encodeOps(ops));
            assertThat(r.statusCode()).isEqualTo(200);
            List<ReplicaBatch.Result> results = ReplicaBatch.decodeResults(r.body(), 3);
            assertThat(results.get(0)).isEqualTo(new ReplicaBatch.Written(5));
            assertThat(((ReplicaBatch.Failed) results.get(1)).reason()).contains("No space left on device");
            assertThat(results.get(2)).isEqualTo(new ReplicaBatch.Written(5));
            assertThat(engine.get(b("c"))).isNotNull();
        }
    }
}
