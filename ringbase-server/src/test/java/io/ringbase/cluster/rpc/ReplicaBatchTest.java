package io.ringbase.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReplicaBatchTest {

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void opsRoundTrip() {
        List<ReplicaBatch.Op> ops = List.of(
                new ReplicaBatch.Write(Entry.value(b("a"), 7, b("value a"))),
                new ReplicaBatch.Read(b("b")),
                new ReplicaBatch.Write(Entry.tombstone(b("c"), 9)),
                new ReplicaBatch.Write(new Entry(b("d"), 11, 123_456L, new byte[0])),
                new ReplicaBatch.Read(new byte[0]),
                new ReplicaBatch.QueryVersion(b("e")));
        List<ReplicaBatch.Op> back = ReplicaBatch.decodeOps(ReplicaBatch.encodeOps(ops));
        assertThat(back).hasSize(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            switch (ops.get(i)) {
                case ReplicaBatch.Write w -> {
                    assertThat(back.get(i)).isInstanceOf(ReplicaBatch.Write.class);
                    Entry e = ((ReplicaBatch.Write) back.get(i)).entry();
                    assertThat(e.key()).isEqualTo(w.entry().key());
                    assertThat(e.version()).isEqualTo(w.entry().version());
                    assertThat(e.expiresAtMs()).isEqualTo(w.entry().expiresAtMs());
                    assertThat(e.value()).isEqualTo(w.entry().value());
                }
                case ReplicaBatch.Read r ->
                    assertThat(((ReplicaBatch.Read) back.get(i)).key()).isEqualTo(r.key());
                case ReplicaBatch.QueryVersion q ->
                    assertThat(((ReplicaBatch.QueryVersion) back.get(i)).key()).isEqualTo(q.key());
            }
        }
        assertThat(ReplicaBatch.decodeOps(new byte[0])).isEmpty();
    }

    @Test
    void resultsRoundTrip() {
        Random rnd = new Random(42);
        List<ReplicaBatch.Result> results = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            results.add(
                    switch (rnd.nextInt(5)) {
                        case 0 -> new ReplicaBatch.Written(rnd.nextLong());
                        case 1 -> new ReplicaBatch.Found(null);
                        case 2 -> new ReplicaBatch.TooLarge();
                        case 3 -> new ReplicaBatch.Failed("IOException: no space left on device \u00e9 " + i);
                        default ->
                            new ReplicaBatch.Found(
                                    rnd.nextBoolean()
                                            ? Entry.tombstone(b("k" + i), i)
                                            : Entry.value(b("k" + i), i, b("v" + rnd.nextInt())));
                    });
        }
        List<ReplicaBatch.Result> back =
                ReplicaBatch.decodeResults(ReplicaBatch.encodeResults(results), results.size());
        for (int i = 0; i < results.size(); i++) {
            ReplicaBatch.Result want = results.get(i);
            ReplicaBatch.Result got = back.get(i);
            switch (want) {
                case ReplicaBatch.Written w -> assertThat(got).isEqualTo(w);
                case ReplicaBatch.Found f
                when f.entry() == null -> assertThat(got).isEqualTo(f);
                case ReplicaBatch.TooLarge t -> assertThat(got).isEqualTo(t);
                case ReplicaBatch.Failed f -> assertThat(got).isEqualTo(f);
                case ReplicaBatch.Found f -> {
                    Entry e = ((ReplicaBatch.Found) got).entry();
                    assertThat(Entry.compareNewness(e, f.entry())).isZero();
                    assertThat(e.key()).isEqualTo(f.entry().key());
                }
            }
        }
    }

    @Test
    void malformedBodiesAreRefused() {
        byte[] ops = ReplicaBatch.encodeOps(List.of(new ReplicaBatch.Read(b("x"))));
        byte[] badKind = ops.clone();
        badKind[0] = 'Z';
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(badKind))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kind");
        byte[] truncated = java.util.Arrays.copyOf(ops, ops.length - 1);
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(truncated)).isInstanceOf(IllegalArgumentException.class);
        byte[] results = ReplicaBatch.encodeResults(List.of(new ReplicaBatch.Written(5), new ReplicaBatch.Found(null)));
        assertThatThrownBy(() -> ReplicaBatch.decodeResults(results, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 results for 3");
        assertThatThrownBy(() -> ReplicaBatch.decodeResults(java.util.Arrays.copyOf(results, 5), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBatchOfMoreOperationsThanTheBoundIsRefused() {
        List<ReplicaBatch.Op> ops = new ArrayList<>();
        for (int i = 0; i <= ReplicaBatch.MAX_OPS; i++) {
            ops.add(new ReplicaBatch.Read(b("k" + i)));
        }
        byte[] body = ReplicaBatch.encodeOps(ops);
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(body))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than " + ReplicaBatch.MAX_OPS);
        assertThat(ReplicaBatch.decodeOps(ReplicaBatch.encodeOps(ops.subList(0, ReplicaBatch.MAX_OPS))))
                .hasSize(ReplicaBatch.MAX_OPS);
    }
}
