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
    void truncatedOrExtendedMessagesAreRefused() {
        byte[] ok = PaxosMessages.encode(new PaxosMessages.Propose(6, VALUE));
        for (int n = 0; n < ok.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(ok, n);
            assertThatThrownBy(() -> PaxosMessages.decodeRequest(cut)).isInstanceOf(IllegalArgumentException.class);
        }
        byte[] longer = java.util.Arrays.copyOf(ok, ok.length + 1);
        assertThatThrownBy(() -> PaxosMessages.decodeRequest(longer)).hasMessageContaining("after the end");
        byte[] otherFormat = ok.clone();
        otherFormat[0] = 2;
        assertThatThrownBy(() -> PaxosMessages.decodeRequest(otherFormat)).hasMessageContaining("format 2");
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
