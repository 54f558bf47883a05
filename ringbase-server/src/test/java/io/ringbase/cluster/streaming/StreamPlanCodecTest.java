package io.ringbase.cluster.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Ring;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** {@link StreamPlanCodec}: round trips, and every reader rule of docs/http-api.md, "Stream plan encoding". */
class StreamPlanCodecTest {

    static final List<NodeId> NODES = StreamPlanTest.FOUR;
    /** After a replacement: node 3 took node 2's place and its seed name. */
    static final Ring REPLACED = new Ring(
            List.of(NODES.get(0), NODES.get(1), NODES.get(3)),
            List.of(NODES.get(0).toString(), NODES.get(1).toString(), "http://10.0.0.3:8080"));

    static final StreamPlan PLAN = new StreamPlan(
            0x0102030405060708L, 2, StreamPlanTest.THREE_RING, REPLACED, NODES.get(0), NODES.get(3), true);

    @Test
    void aPlanRoundTripsWithItsSeedNames() {
        StreamPlan back = StreamPlanCodec.decode(StreamPlanCodec.encode(PLAN));
        assertThat(back.epoch()).isEqualTo(PLAN.epoch());
        assertThat(back.rf()).isEqualTo(2);
        assertThat(back.anyOldReplica()).isTrue();
        assertThat(back.source()).isEqualTo(NODES.get(0));
        assertThat(back.target()).isEqualTo(NODES.get(3));
        assertThat(back.before().nodes()).isEqualTo(PLAN.before().nodes());
        assertThat(back.before().seedNames()).isEqualTo(PLAN.before().seedNames());
        assertThat(back.after().nodes()).isEqualTo(REPLACED.nodes());
        assertThat(back.after().seedNames()).isEqualTo(REPLACED.seedNames());
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            long h = random.nextLong();
            assertThat(back.wants(h)).isEqualTo(PLAN.wants(h));
        }
        assertThat(StreamPlanCodec.encode(back)).isEqualTo(StreamPlanCodec.encode(PLAN));
        StreamPlan plain = new StreamPlan(
                0, 1, StreamPlanTest.FOUR_RING, StreamPlanTest.THREE_RING, NODES.get(3), NODES.get(1), false);
        assertThat(StreamPlanCodec.decode(StreamPlanCodec.encode(plain)).anyOldReplica())
                .isFalse();
    }

    @Test
    void everyFlippedByteIsRefused() {
        byte[] good = StreamPlanCodec.encode(PLAN);
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x10;
            int at = i;
            assertThatThrownBy(() -> StreamPlanCodec.decode(bad))
                    .as("byte %d flipped", at)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("checksum mismatch");
        }
    }

    @Test
    void aTruncatedPlanIsRefused() {
        byte[] good = StreamPlanCodec.encode(PLAN);
        for (int length : new int[] {0, 5, StreamPlanCodec.HEADER_SIZE, good.length - 1}) {
            assertThatThrownBy(() -> StreamPlanCodec.decode(Arrays.copyOf(good, length)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        // cut inside the second ring, with a checksum made for the shorter body: truncated, not a mismatch
        byte[] cut = Arrays.copyOf(good, good.length - 10);
        assertThatThrownBy(() -> StreamPlanCodec.decode(resealed(cut)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated");
    }

    @Test
    void anUnknownVersionFlagOrMagicIsRefusedEvenWithAGoodChecksum() {
        byte[] good = StreamPlanCodec.encode(PLAN);
        byte[] version = good.clone();
        version[4] = 2;
        assertThatThrownBy(() -> StreamPlanCodec.decode(resealed(version)))
                .hasMessageContaining("unknown stream plan version 2");
        byte[] flags = good.clone();
        flags[14] |= 0x02;
        assertThatThrownBy(() -> StreamPlanCodec.decode(resealed(flags)))
                .hasMessageContaining("unknown stream plan flags 0x3");
        byte[] magic = good.clone();
        magic[0] = 'X';
        assertThatThrownBy(() -> StreamPlanCodec.decode(resealed(magic))).hasMessageContaining("bad magic");
        byte[] longer = Arrays.copyOf(good, good.length + 3); // 3 bytes after the rings, then a checksum
        assertThatThrownBy(() -> StreamPlanCodec.decode(resealed(longer))).hasMessageContaining("after its rings");
        byte[] target = good.clone();
        target[16] = 9; // no node 9 in the ring after
        assertThatThrownBy(() -> StreamPlanCodec.decode(resealed(target)))
                .hasMessageContaining("target index 9 is not in its ring");
    }

    /** {@code bytes} with its last 4 bytes replaced by the CRC32C of the rest. */
    static byte[] resealed(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length - 4, (int) crc.getValue());
        return bytes;
    }
}
