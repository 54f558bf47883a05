package io.ringbase.cluster.metadata;

import static io.ringbase.cluster.metadata.TransformationTest.applied;
import static io.ringbase.cluster.metadata.TransformationTest.threeNodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The records of docs/metadata-format.md: exact bytes, round trips, and every reader rule of section 6. */
class MetadataCodecTest {

    private static final List<Transformation> ONE_OF_EACH = List.of(
            new Transformation.Initialize(
                    TransformationTest.CLUSTER,
                    2,
                    List.of(TransformationTest.founder(1), TransformationTest.founder(2))),
            new Transformation.StartJoin("http://[::1]:8080", "[::1]:9090"),
            new Transformation.FinishJoin(4),
            new Transformation.StartDecommission(5),
            new Transformation.FinishDecommission(6),
            new Transformation.RemoveNode(7),
            new Transformation.StartReplace(3, "http://node.example:1", "ñode.example:2"),
            new Transformation.FinishReplace(8),
            new Transformation.SetReplicationFactor(3));

    @Test
    void aTransformationIsLaidOutAsDocumented() {
        byte[] bytes = MetadataCodec.encode(new Transformation.FinishJoin(7));
        // magic "RBMT", version 1, kind 3 (FINISH_JOIN), length 4, nodeId 7, then the crc
        assertThat(HexFormat.of().formatHex(bytes, 0, 14)).isEqualTo("52424d5401030400000007000000");
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, 14);
        assertThat(ByteBuffer.wrap(bytes, 14, 4).order(ByteOrder.LITTLE_ENDIAN).getInt())
                .isEqualTo((int) crc.getValue());
        assertThat(bytes).hasSize(MetadataCodec.FRAME_SIZE + 4);
    }

    @Test
    void everyTransformationRoundTrips() throws MetadataFormatException {
        for (Transformation t : ONE_OF_EACH) {
            assertThat(MetadataCodec.decodeTransformation(MetadataCodec.encode(t)))
                    .as("%s", t)
                    .isEqualTo(t);
        }
    }

    @Test
    void metadataRoundTripsWithEveryState() throws MetadataFormatException {
        ClusterMetadata m = applied(threeNodes(), new Transformation.StartDecommission(3));
        m = applied(m, new Transformation.FinishDecommission(3));
        m = applied(m, new Transformation.StartReplace(2, "http://127.0.0.1:8020", "127.0.0.1:9020"));
        assertThat(MetadataCodec.decodeMetadata(MetadataCodec.encode(m))).isEqualTo(m);
        assertThat(MetadataCodec.decodeMetadata(MetadataCodec.encode(ClusterMetadata.EMPTY)))
                .isEqualTo(ClusterMetadata.EMPTY);
    }

    @Test
    void repliesRoundTrip() throws MetadataFormatException {
        Outcome applied = new Outcome.Applied(threeNodes());
        Outcome rejected = new Outcome.Rejected(5, "node 2 is NORMAL, not JOINING");
        assertThat(MetadataCodec.decodeOutcome(MetadataCodec.encode(applied))).isEqualTo(applied);
        assertThat(MetadataCodec.decodeOutcome(MetadataCodec.encode(rejected))).isEqualTo(rejected);
        assertThat(MetadataCodec.decodeQuery(MetadataCodec.encodeCurrentQuery()))
                .isEqualTo(MetadataCodec.QUERY_CURRENT);
    }

    @Test
    void everyFlippedBitOfASnapshotIsDetected() {
        byte[] good = MetadataCodec.encode(threeNodes());
        for (int i = 0; i < good.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = good.clone();
                bad[i] ^= (byte) (1 << bit);
                assertThatThrownBy(() -> MetadataCodec.decodeMetadata(bad))
                        .as("bit %d of byte %d", bit, i)
                        .isInstanceOf(MetadataFormatException.class);
            }
        }
    }

    @Test
    void checksumMismatchIsNamed() {
        byte[] bytes = MetadataCodec.encode(new Transformation.RemoveNode(2));
        bytes[MetadataCodec.HEADER_SIZE] ^= 0x01; // node id 2 -> 3
        assertThatThrownBy(() -> MetadataCodec.decodeTransformation(bytes))
                .isInstanceOf(MetadataFormatException.class)
                .hasMessageStartingWith("transformation record checksum mismatch");
    }

    @Test
    void truncatedRecordsAreRefused() {
        byte[] bytes = MetadataCodec.encode(threeNodes());
        assertThatThrownBy(() -> MetadataCodec.decodeMetadata(Arrays.copyOf(bytes, 10)))
                .hasMessage("metadata snapshot record truncated: 10 bytes, the frame alone is 14");
        assertThatThrownBy(() -> MetadataCodec.decodeMetadata(Arrays.copyOf(bytes, bytes.length - 1)))
                .hasMessageContaining("does not match its");
    }

    @Test
    void aRecordOfAnotherKindIsRefused() {
        byte[] snapshot = MetadataCodec.encode(threeNodes());
        assertThatThrownBy(() -> MetadataCodec.decodeTransformation(snapshot))
                .hasMessage("not a transformation record: magic 0x534d4252, expected 0x544d4252");
    }

    @Test
    void anUnknownVersionIsRefusedEvenWithAValidChecksum() {
        byte[] bytes = reframe(MetadataCodec.encode(new Transformation.FinishJoin(1)), 4, (byte) 2);
        assertThatThrownBy(() -> MetadataCodec.decodeTransformation(bytes))
                .hasMessage("transformation record has unknown version 2 (this server reads 1..1)");
        byte[] snapshot = reframe(MetadataCodec.encode(threeNodes()), 4, (byte) 3);
        assertThatThrownBy(() -> MetadataCodec.decodeMetadata(snapshot))
                .hasMessage("metadata snapshot record has unknown version 3 (this server reads 1..2)");
    }

    @Test
    void aSnapshotOfVersion2EndsWithTheVoters() throws MetadataFormatException {
        ClusterMetadata m = threeNodes();
        byte[] bytes = MetadataCodec.encode(m);
        assertThat(bytes[4]).as("version").isEqualTo((byte) 2);
        // the body's last 16 bytes: voterCount 3, then the voter ids 1, 2, 3
        int voters = bytes.length - 4 - 16;
        assertThat(HexFormat.of().formatHex(bytes, voters, voters + 16))
                .isEqualTo("03000000" + "01000000" + "02000000" + "03000000");
        assertThat(MetadataCodec.decodeMetadata(bytes).voters()).containsExactly(1, 2, 3);
    }

    @Test
    void aSnapshotOfVersion1IsReadWithNoVotersRecorded() throws MetadataFormatException {
        ClusterMetadata m = threeNodes();
        byte[] v2 = MetadataCodec.encode(m);
        // version 1: the same body without the voters (4 + 3 x 4 bytes), its length and crc to match
        byte[] v1 = Arrays.copyOf(v2, v2.length - 16);
        v1[4] = 1;
        ByteBuffer.wrap(v1, 6, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(v1.length - MetadataCodec.FRAME_SIZE);
        v1 = reframe(v1, 4, (byte) 1);
        ClusterMetadata read = MetadataCodec.decodeMetadata(v1);
        assertThat(read.votersRecorded()).isFalse();
        assertThat(read.withVoters(m.voters())).isEqualTo(m);
    }

    @Test
    void votersNotAscendingOrNotMembersAreRefused() {
        byte[] good = MetadataCodec.encode(threeNodes());
        int lastVoter = good.length - 4 - 4;
        assertThatThrownBy(() -> MetadataCodec.decodeMetadata(reframe(good, lastVoter, (byte) 2)))
                .hasMessage("voter ids not ascending: 2 after 2");
        assertThatThrownBy(() -> MetadataCodec.decodeMetadata(reframe(good, lastVoter, (byte) 9)))
                .hasMessage("invalid metadata: voter 9 is not a member");
    }

    @Test
    void anUnknownKindIsRefusedEvenWithAValidChecksum() {
        byte[] bytes = reframe(MetadataCodec.encode(new Transformation.FinishJoin(1)), 5, (byte) 0);
        assertThatThrownBy(() -> MetadataCodec.decodeTransformation(bytes)).hasMessage("unknown transformation kind 0");
    }

    @Test
    void anUnknownNodeStateIsRefusedEvenWithAValidChecksum() {
        byte[] good = MetadataCodec.encode(threeNodes());
        // body: uuid 16, epoch 8, rf 4, next id 4, count 4, then member 1: id 4, state 1
        int stateOffset = MetadataCodec.HEADER_SIZE + 16 + 8 + 4 + 4 + 4 + 4;
        assertThat(good[stateOffset]).isEqualTo((byte) MemberState.NORMAL.code());
        byte[] bad = reframe(good, stateOffset, (byte) 9);
        assertThatThrownBy(() -> MetadataCodec.decodeMetadata(bad))
                .hasMessage("invalid metadata: unknown node state code 9");
    }

    @Test
    void bytesLeftOverAreRefused() {
        byte[] good = MetadataCodec.encode(new Transformation.FinishJoin(1));
        // the same record with a body of 5 bytes: the node id and one extra byte
        ByteBuffer out = ByteBuffer.allocate(good.length + 1).order(ByteOrder.LITTLE_ENDIAN);
        out.put(good, 0, 6).putInt(5).put(good, MetadataCodec.HEADER_SIZE, 4).put((byte) 0);
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putInt((int) crc.getValue());
        assertThatThrownBy(() -> MetadataCodec.decodeTransformation(out.array()))
                .hasMessage("transformation body has 1 bytes left over");
    }

    /** {@code record} with the byte at {@code offset} set to {@code value} and the crc recomputed. */
    private static byte[] reframe(byte[] record, int offset, byte value) {
        byte[] bytes = record.clone();
        bytes[offset] = value;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer.wrap(bytes, bytes.length - 4, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt((int) crc.getValue());
        return bytes;
    }
}
