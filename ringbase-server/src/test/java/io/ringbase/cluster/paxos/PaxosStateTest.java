package io.ringbase.cluster.paxos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class PaxosStateTest {

    private static PaxosState committed(long... versions) {
        PaxosState s = PaxosState.NONE;
        for (long v : versions) {
            s = s.withCommitted(v, v);
        }
        return s;
    }

    @Test
    void recentKeepsTheHighestVersionsInAscendingOrder() {
        PaxosState s = committed(LongStream.rangeClosed(1, 20).map(v -> 100 + v).toArray());
        assertThat(s.recent())
                .containsExactly(LongStream.rangeClosed(5, 20).map(v -> 100 + v).toArray());
    }

    @Test
    void aLateCommitBelowAFullListIsNotRemembered() {
        PaxosState full = committed(
                LongStream.rangeClosed(1, PaxosState.RECENT).map(v -> 100 + v).toArray());
        PaxosState late = full.withCommitted(50, 50);
        assertThat(late.recent()).containsExactly(full.recent());
        assertThat(late.committed()).isEqualTo(full.committed());
    }

    @Test
    void aLateCommitIntoAListNotYetFullTakesItsPlaceInOrder() {
        PaxosState s = committed(10, 30).withCommitted(20, 20);
        assertThat(s.recent()).containsExactly(10, 20, 30);
        assertThat(s.withCommitted(20, 20).recent()).containsExactly(10, 20, 30);
    }

    @Test
    void aStateWrittenInCommitOrderIsReadSorted() {
        PaxosState unsorted = new PaxosState(7, 0, null, 7, new long[] {30, 10, 20});
        assertThat(PaxosState.decode(unsorted.encode()).recent()).containsExactly(10, 20, 30);
    }
}
