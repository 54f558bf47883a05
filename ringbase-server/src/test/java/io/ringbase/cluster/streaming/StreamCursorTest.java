package io.ringbase.cluster.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StreamCursor}: the file of docs/format.md section 10 and its reader rules. */
class StreamCursorTest {

    @TempDir
    Path dir;

    static final StreamCursor CURSOR =
            new StreamCursor(7, 0x1122334455667788L, new byte[] {'k', 'e', 'y', 0}, 12_345, 6_789_000, false);

    @Test
    void aCursorRoundTripsThroughItsFile() throws Exception {
        Path file = StreamCursor.file(dir, new NodeId(3, "h", 1));
        assertThat(dir.relativize(file).toString()).isEqualTo("cluster/streaming/from-3");
        assertThat(StreamCursor.read(file)).isNull();
        CURSOR.write(file);
        StreamCursor back = StreamCursor.read(file);
        assertThat(back.epoch()).isEqualTo(7);
        assertThat(back.planDigest()).isEqualTo(0x1122334455667788L);
        assertThat(back.next()).containsExactly('k', 'e', 'y', 0);
        assertThat(back.entries()).isEqualTo(12_345);
        assertThat(back.bytes()).isEqualTo(6_789_000);
        assertThat(back.done()).isFalse();
        new StreamCursor(8, 1, new byte[0], 1, 2, true).write(file);
        assertThat(StreamCursor.read(file).done()).isTrue();
        assertThat(Files.exists(file.resolveSibling("from-3.tmp"))).isFalse();
    }

    @Test
    void aCursorIsForThePlanWithItsEpochAndDigestOnly() {
        StreamPlan plan = StreamPlanCodecTest.PLAN;
        StreamCursor start = StreamCursor.start(plan);
        assertThat(start.isFor(plan)).isTrue();
        StreamPlan otherEpoch = new StreamPlan(
                plan.epoch() + 1,
                plan.rf(),
                plan.before(),
                plan.after(),
                plan.source(),
                plan.target(),
                plan.anyOldReplica());
        assertThat(start.isFor(otherEpoch)).isFalse();
        StreamPlan otherKeys = new StreamPlan(
                plan.epoch(),
                plan.rf(),
                plan.before(),
                plan.after(),
                plan.source(),
                plan.target(),
                !plan.anyOldReplica());
        assertThat(start.isFor(otherKeys)).isFalse();
    }

    @Test
    void everyFlippedByteIsRefused() {
        byte[] good = CURSOR.encode();
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            assertThatThrownBy(() -> StreamCursor.decode(bad))
                    .as("byte %d flipped", i)
                    .hasMessageContaining("checksum mismatch");
        }
    }

    @Test
    void aWrongLengthVersionOrFlagIsRefusedEvenWithAGoodChecksum() {
        byte[] good = CURSOR.encode();
        byte[] length = good.clone();
        length[StreamCursor.HEADER_SIZE - 4] = 9;
        assertThatThrownBy(() -> StreamCursor.decode(StreamPlanCodecTest.resealed(length)))
                .hasMessageContaining("key length 9 does not match the 4 bytes left");
        byte[] version = good.clone();
        version[4] = 2;
        assertThatThrownBy(() -> StreamCursor.decode(StreamPlanCodecTest.resealed(version)))
                .hasMessageContaining("unknown stream cursor version 2");
        byte[] flags = good.clone();
        flags[5] = (byte) 0x80;
        assertThatThrownBy(() -> StreamCursor.decode(StreamPlanCodecTest.resealed(flags)))
                .hasMessageContaining("unknown stream cursor flags 0x80");
        assertThatThrownBy(() -> StreamCursor.decode(new byte[10])).hasMessageContaining("too short");
    }
}
