package io.ringbase.cluster.paxos;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.Entry;
import io.ringbase.storage.TypedEntries;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The Paxos messages and the stored state: round trips, and every damaged byte refused. */
class PaxosMessagesTest {

    private static final Entry VALUE = new Entry("k".getBytes(UTF_8), 42, 7, "v".getBytes(UTF_8));
    private static final Entry TOMBSTONE = Entry.tombstone("k".getBytes(UTF_8), 43);

    @Test
    void requestsAndRepliesRoundTrip() {
        for (PaxosMessages.Request r : new PaxosMessages.Request[] {
            new PaxosMessages.Prepare("k".getBytes(UTF_8), 5),
            new PaxosMessages.Propose(6, VALUE),
            new PaxosMessages.Commit(7, TOMBSTONE)
        }) {
            PaxosMessages.Request back = PaxosMessages.decodeRequest(PaxosMessages.encode(r));
            assertThat(PaxosMessages.encode(back)).isEqualTo(PaxosMessages.encode(r));
            assertThat(back.key()).isEqualTo(r.key());
        }
        PaxosMessages.Promise p = new PaxosMessages.Promise(true, 9, 8, VALUE, 7, TOMBSTONE, new long[] {1, 2, 3});
        PaxosMessages.Promise q = (PaxosMessages.Promise) PaxosMessages.decodeReply(PaxosMessages.encode(p));
        assertThat(q.proposal()).isEqualTo(VALUE);
        assertThat(q.current()).isEqualTo(TOMBSTONE);
        assertThat(q.recent()).containsExactly(1, 2, 3);
        assertThat(q.promised()).isEqualTo(9);
        assertThat(PaxosMessages.decodeReply(PaxosMessages.encode(new PaxosMessages.Accepted(false, 11))))
                .isEqualTo(new PaxosMessages.Accepted(false, 11));
    }

    @Test
    void aRequestOfEpochZeroKeepsFormatOneAndOneWithAnEpochCarriesIt() {
        byte[] k = "k".getBytes(UTF_8);
        byte[] noEpoch = PaxosMessages.encode(new PaxosMessages.Prepare(k, 5));
        assertThat(noEpoch[0]).isEqualTo((byte) 1); // what builds before epochs read: static clusters unchanged
        assertThat(noEpoch).hasSize(2 + 8 + 4 + 1);
        byte[] withEpoch = PaxosMessages.encode(new PaxosMessages.Prepare(k, 5, 0x0102));
        assertThat(withEpoch[0]).isEqualTo((byte) 2);
        assertThat(withEpoch).hasSize(noEpoch.length + 8);
        assertThat(withEpoch[2]).isEqualTo((byte) 0x02); // epoch i64 little-endian after the type
        assertThat(withEpoch[3]).isEqualTo((byte) 0x01);
        for (PaxosMessages.Request r : new PaxosMessages.Request[] {
            new PaxosMessages.Prepare(k, 5, 9),
            new PaxosMessages.Propose(6, VALUE, 9),
            new PaxosMessages.Commit(7, TOMBSTONE, 9)
        }) {
            assertThat(PaxosMessages.decodeRequest(PaxosMessages.encode(r)).epoch())
                    .isEqualTo(9);
        }
        byte[] zeroInFormat2 = withEpoch.clone();
        zeroInFormat2[2] = 0;
        zeroInFormat2[3] = 0;
        assertThatThrownBy(() -> PaxosMessages.decodeRequest(zeroInFormat2)).hasMessageContaining("epoch 0");
    }

    @Test
    void aStaleReplyRoundTripsInFormatTwoOnly() {
        byte[] stale = PaxosMessages.encode(new PaxosMessages.Stale(12));
        assertThat(stale).containsExactly(2, 0x84, 12, 0, 0, 0, 0, 0, 0, 0);
        assertThat(PaxosMessages.decodeReply(stale)).isEqualTo(new PaxosMessages.Stale(12));
        byte[] format1 = stale.clone();
        format1[0] = 1;
        assertThatThrownBy(() -> PaxosMessages.decodeReply(format1)).hasMessageContaining("STALE");
    }

    @Test
    void truncatedOrExtendedMessagesAreRefused() {
        byte[] ok = PaxosMessages.encode(new PaxosMessages.Propose(6, VALUE));
        for (int n = 0; n < ok.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(ok, n);
            assertThatThrownBy(() -> PaxosMessages.decodeRequest(cut)).isInstanceOf(IllegalArgumentException.class);
        }
        byte[] longer = java.util.Arrays.copyOf(ok, ok.length + 1);
        assertThatThrownBy(() -> PaxosMessages.decodeRequest(longer)).hasMessageContaining("after the end");
        byte[] otherFormat = ok.clone();
        otherFormat[0] = 3;
        assertThatThrownBy(() -> PaxosMessages.decodeRequest(otherFormat)).hasMessageContaining("format 3");
    }

    @Test
    void stateRoundTripsAndEveryFlippedByteFailsItsChecksum() {
        PaxosState s = PaxosState.NONE.withPromised(10).withAccepted(10, VALUE);
        assertThat(PaxosState.decode(s.encode())).isEqualTo(s);
        PaxosState committed = s.withCommitted(10, VALUE.version());
        assertThat(committed.proposal()).isNull();
        assertThat(committed.recent()).containsExactly(42);
        byte[] bytes = s.encode();
        Random random = new Random(7);
        for (int i = 0; i < bytes.length; i++) {
            byte[] damaged = bytes.clone();
            damaged[i] ^= (byte) (1 << random.nextInt(8));
            assertThatThrownBy(() -> PaxosState.decode(damaged)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void recentCommitsKeepTheLatestSixteen() {
        PaxosState s = PaxosState.NONE;
        for (long v = 1; v <= 20; v++) {
            s = s.withCommitted(v, 100 + v);
        }
        assertThat(s.recent()).hasSize(PaxosState.RECENT);
        assertThat(s.recent()[0]).isEqualTo(105);
        assertThat(s.recent()[PaxosState.RECENT - 1]).isEqualTo(120);
        assertThat(PaxosState.decode(s.encode())).isEqualTo(s);
        assertThat(s.withCommitted(20, 120)).isEqualTo(s); // a repeated commit changes nothing
    }

    @Test
    void typedEntriesKeepTheirBit() {
        for (Entry e : TypedEntries.random(19, 60)) {
            PaxosMessages.Request r = new PaxosMessages.Propose(6, e);
            PaxosMessages.Propose back = (PaxosMessages.Propose) PaxosMessages.decodeRequest(PaxosMessages.encode(r));
            assertThat(back.proposal()).isEqualTo(e);
            assertThat(back.proposal().typed()).isEqualTo(e.typed());
        }
    }
}
