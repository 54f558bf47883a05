package io.ringbase.cluster.paxos;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.Entry;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An acceptor's promises and accepted proposals survive a restart: its {@link PaxosStore} is reopened
 * from disk, and a ballot below the one promised before is still refused.
 */
class PaxosStoreTest {

    private static final byte[] KEY = "k".getBytes(UTF_8);

    @Test
    void promisesAndAcceptedProposalsSurviveAReopen(@TempDir Path dir) throws Exception {
        HybridLogicalClock clock = new HybridLogicalClock(1);
        long low = clock.now();
        long high = clock.now();
        Entry proposal = new Entry(KEY, clock.now(), Entry.NO_EXPIRY, "v".getBytes(UTF_8));
        InMemoryEngine data = new InMemoryEngine();
        try (PaxosStore store = PaxosStore.open(dir, System::currentTimeMillis)) {
            PaxosAcceptor acceptor = new PaxosAcceptor(data, store, clock);
            assertThat(((PaxosMessages.Promise) acceptor.handle(new PaxosMessages.Prepare(KEY, high))).ok())
                    .isTrue();
            assertThat(acceptor.handle(new PaxosMessages.Propose(high, proposal)))
                    .isEqualTo(new PaxosMessages.Accepted(true, high));
        }
        try (PaxosStore store = PaxosStore.open(dir, System::currentTimeMillis)) {
            PaxosAcceptor acceptor = new PaxosAcceptor(data, store, clock);
            PaxosMessages.Promise refused =
                    (PaxosMessages.Promise) acceptor.handle(new PaxosMessages.Prepare(KEY, low));
            assertThat(refused.ok()).isFalse();
            assertThat(refused.promised()).isEqualTo(high);
            assertThat(acceptor.handle(new PaxosMessages.Propose(low, proposal)))
                    .isEqualTo(new PaxosMessages.Accepted(false, high));
            PaxosMessages.Promise promised =
                    (PaxosMessages.Promise) acceptor.handle(new PaxosMessages.Prepare(KEY, clock.now()));
            assertThat(promised.ok()).isTrue();
            assertThat(promised.accepted()).isEqualTo(high);
            assertThat(promised.proposal()).isEqualTo(proposal);
            assertThat(promised.current()).isNull(); // accepted, not yet committed: the engine has nothing
            acceptor.handle(new PaxosMessages.Commit(high, proposal));
            assertThat(data.get(KEY)).isEqualTo(proposal);
        }
        try (PaxosStore store = PaxosStore.open(dir, System::currentTimeMillis)) {
            PaxosMessages.Promise after = (PaxosMessages.Promise)
                    new PaxosAcceptor(data, store, clock).handle(new PaxosMessages.Prepare(KEY, clock.now()));
            assertThat(after.committed()).isEqualTo(high);
            assertThat(after.proposal()).isNull(); // applied by the commit: dropped
            assertThat(after.recent()).containsExactly(proposal.version());
        }
    }
}
