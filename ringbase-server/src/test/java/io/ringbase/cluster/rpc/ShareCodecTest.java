package io.ringbase.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.kv.ScanShare;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The share description's encoding, byte by byte as docs/http-api.md, "Share description encoding", says. */
@Timeout(30)
class ShareCodecTest {

    private static final ScanShare SHARE = new ScanShare(7, Set.of("http://b:2"), List.of("http://a:1", "http://c:3"));

    /** Rewrites the checksum after a change, so that a test reaches the rule after it. */
    private static byte[] resealed(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length - 4, (int) crc.getValue());
        return bytes;
    }

    @Test
    void encodesEveryFieldAsDocumented() {
        byte[] bytes = ShareCodec.encode(SHARE);
        String expected = "52425348" // "RBSH"
                + "01" // version
                + "0700000000000000" // epoch 7, little-endian
                + "02" // path count
                + "0a00" + HexFormat.of().formatHex("http://a:1".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                + "0a00" + HexFormat.of().formatHex("http://c:3".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                + "01" // down count
                + "0a00" + HexFormat.of().formatHex("http://b:2".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(HexFormat.of().formatHex(bytes, 0, bytes.length - 4)).isEqualTo(expected);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        assertThat(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(bytes.length - 4))
                .isEqualTo((int) crc.getValue());
    }

    @Test
    void roundTripsAndTheDownSetsOrderDoesNotChangeTheBytes() {
        SplittableRandom random = new SplittableRandom(29);
        for (int round = 0; round < 200; round++) {
            List<String> path = new java.util.ArrayList<>();
            for (int i = 1 + random.nextInt(4); i > 0; i--) {
                path.add("http://10.0.0." + random.nextInt(256) + ":" + (1 + random.nextInt(65535)));
            }
            Set<String> down = new LinkedHashSet<>();
            for (int i = random.nextInt(4); i > 0; i--) {
                down.add("http://h" + random.nextInt(1000) + ".example:8080");
            }
            ScanShare share = new ScanShare(random.nextLong(Long.MAX_VALUE), down, path);
            ScanShare back = ShareCodec.decode(ShareCodec.encode(share));
            assertThat(back).isEqualTo(share);
            List<String> reversed = new java.util.ArrayList<>(down);
            java.util.Collections.reverse(reversed);
            assertThat(ShareCodec.encode(new ScanShare(share.epoch(), new LinkedHashSet<>(reversed), path)))
                    .isEqualTo(ShareCodec.encode(share));
        }
    }

    @Test
    void aFlippedByteFailsTheChecksum() {
        byte[] bytes = ShareCodec.encode(SHARE);
        for (int i = 0; i < bytes.length; i++) {
            byte[] flipped = bytes.clone();
            flipped[i] ^= 0x10;
            assertThatThrownBy(() -> ShareCodec.decode(flipped))
                    .as("byte %d flipped", i)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("checksum");
        }
    }

    @Test
    void anotherMagicOrVersionIsRefused() {
        byte[] magic = ShareCodec.encode(SHARE);
        magic[3] = 'X';
        assertThatThrownBy(() -> ShareCodec.decode(resealed(magic))).hasMessageContaining("magic");
        byte[] version = ShareCodec.encode(SHARE);
        version[4] = 2;
        assertThatThrownBy(() -> ShareCodec.decode(resealed(version)))
                .hasMessageContaining("version 2")
                .hasMessageContaining("reads 1");
    }

    @Test
    void truncatedOrTrailingBytesAreRefused() {
        byte[] bytes = ShareCodec.encode(SHARE);
        byte[] cut = resealed(Arrays.copyOf(Arrays.copyOf(bytes, bytes.length - 4 - 3), bytes.length - 3));
        assertThatThrownBy(() -> ShareCodec.decode(cut)).hasMessageContaining("truncated");
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        System.arraycopy(bytes, bytes.length - 4, longer, bytes.length - 3, 4);
        longer[bytes.length - 4] = 0;
        assertThatThrownBy(() -> ShareCodec.decode(resealed(longer))).hasMessageContaining("after its down set");
        assertThatThrownBy(() -> ShareCodec.decode(new byte[5])).hasMessageContaining("too short");
    }

    @Test
    void anEmptyPathOrAnEmptyUrlIsRefused() {
        byte[] bytes = ShareCodec.encode(new ScanShare(0, Set.of(), List.of("h")));
        // magic, version, epoch 0, no path, no down set
        byte[] noPath = resealed(new byte[] {0x52, 0x42, 0x53, 0x48, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        assertThatThrownBy(() -> ShareCodec.decode(noPath)).hasMessageContaining("path");
        byte[] emptyUrl = bytes.clone();
        emptyUrl[14] = 0; // the URL's length
        assertThatThrownBy(() -> ShareCodec.decode(resealed(emptyUrl))).hasMessageContaining("must be 1..");
    }
}
