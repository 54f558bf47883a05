package io.ringbase.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdentityFileTest {

    @TempDir
    Path dir;

    @Test
    void anIdentityReadsBackAsWritten() throws Exception {
        assertThat(IdentityFile.read(dir)).isNull();
        NodeIdentity id =
                new NodeIdentity("prod-eu", 5, 0x8000_0000_0000_0001L, NodeState.REPLACING, 1_700_000_000_000L);
        IdentityFile.write(dir, id);
        assertThat(IdentityFile.read(dir)).isEqualTo(id);
        IdentityFile.write(dir, id.withState(NodeState.NORMAL));
        assertThat(IdentityFile.read(dir)).isEqualTo(id.withState(NodeState.NORMAL));
    }

    @Test
    void aFlippedByteIsCorruptionNotAnotherIdentity() throws Exception {
        IdentityFile.write(dir, new NodeIdentity("c", 1, 42, NodeState.NORMAL, 7));
        Path file = IdentityFile.path(dir);
        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i < bytes.length; i++) {
            byte[] damaged = bytes.clone();
            damaged[i] ^= 0x10;
            Files.write(file, damaged);
            assertThatThrownBy(() -> IdentityFile.read(dir))
                    .as("byte %d flipped", i)
                    .isInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void peerMemoryPersistsWhatChanged() throws Exception {
        PeerMemory memory = PeerMemory.open(dir);
        assertThat(memory.incarnationOf("http://a:1")).isNull();
        assertThat(memory.remember("http://a:1", 11)).isTrue();
        assertThat(memory.remember("http://a:1", 11)).isFalse();
        assertThat(memory.remember("http://b:2", -3)).isTrue();
        assertThat(memory.remember("http://a:1", 12)).isTrue();

        PeerMemory reopened = PeerMemory.open(dir);
        assertThat(reopened.incarnationOf("http://a:1")).isEqualTo(12L);
        assertThat(reopened.incarnationOf("http://b:2")).isEqualTo(-3L);
        assertThat(PeerMemory.decode(PeerMemory.encode(Map.of("http://x:9", 5L))))
                .containsEntry("http://x:9", 5L);
    }

    @Test
    void damagedPeerMemoryIsCorruption() throws Exception {
        PeerMemory.open(dir).remember("http://a:1", 11);
        Path file = dir.resolve(IdentityFile.DIR).resolve(PeerMemory.NAME);
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 1;
        Files.write(file, bytes);
        assertThatThrownBy(() -> PeerMemory.open(dir)).isInstanceOf(CorruptionException.class);
    }

    @Test
    void membershipDigestCoversNameFactorAndOrder() {
        Membership m = new Membership("c", java.util.List.of("http://a:1", "http://b:2", "http://c:3"), 3);
        assertThat(m.digest())
                .isEqualTo(new Membership("c", java.util.List.of("http://a:1", "http://b:2", "http://c:3"), 3).digest())
                .isNotEqualTo(new Membership("d", m.urls(), 3).digest())
                .isNotEqualTo(new Membership("c", m.urls(), 2).digest())
                .isNotEqualTo(
                        new Membership("c", java.util.List.of("http://b:2", "http://a:1", "http://c:3"), 3).digest());
        assertThat(m.describe()).contains("cluster 'c'", "rf 3", "http://b:2", m.digestHex());
        assertThatThrownBy(() -> new Membership("bad name", m.urls(), 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cluster name");
    }
}
