package io.ringbase.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalMembershipTest {

    private static final List<String> URLS = List.of("http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3");
    private static final Topology FIRST = Topology.parse(URLS, URLS.get(0));
    private static final Membership MEMBERSHIP = Membership.of("test", FIRST);

    @TempDir
    Path dir;

    /** What each peer answers; a peer with no entry does not answer (an exceptional future). */
    private final Map<String, HelloSender.Answer> answers = new ConcurrentHashMap<>();

    private final AtomicInteger streams = new AtomicInteger();
    private volatile boolean streamingSucceeds;
    private LocalMembership local;

    private final HelloSender hello = (NodeId peer, NodeIdentity me) -> {
        HelloSender.Answer a = answers.get(peer.toString());
        return a == null
                ? CompletableFuture.failedFuture(new java.net.ConnectException("down"))
                : CompletableFuture.completedFuture(a);
    };

    private final StreamFromPeers streaming = () -> {
        streams.incrementAndGet();
        return streamingSucceeds;
    };

    @AfterEach
    void close() {
        if (local != null) {
            local.close();
        }
    }

    private LocalMembership open(boolean engineEmpty) throws Exception {
        local = LocalMembership.open(dir, MEMBERSHIP, FIRST, engineEmpty, TimeSource.SYSTEM);
        return local;
    }

    @Test
    void aNewDirectoryAnswersNoReadsUntilAPeerSaysItLostNothing() throws Exception {
        open(true);
        assertThat(local.state()).isEqualTo(NodeState.PENDING);
        assertThat(local.readRefusal()).contains("PENDING");
        local.start(hello, streaming);
        // no peer answers: still pending, still refusing reads
        assertThat(local.state()).isEqualTo(NodeState.PENDING);
        answers.put(URLS.get(2), HelloSender.Answer.NONE);
        await().atMost(Duration.ofSeconds(10)).until(() -> local.state() == NodeState.NORMAL);
        assertThat(local.readRefusal()).isNull();
        assertThat(streams).hasValue(0);
        assertThat(IdentityFile.read(dir).state()).isEqualTo(NodeState.NORMAL);
    }

    @Test
    void aPeerThatRemembersAnotherIncarnationMakesItReplaceUntilStreamingCompletes() throws Exception {
        open(true);
        answers.put(URLS.get(1), new HelloSender.Answer(12345, true)); // knew the node before it was wiped
        local.start(hello, streaming);
        await().atMost(Duration.ofSeconds(10)).until(() -> streams.get() >= 1);
        assertThat(local.state()).isEqualTo(NodeState.REPLACING);
        assertThat(local.readRefusal()).contains("REPLACING");
        assertThat(IdentityFile.read(dir).state()).isEqualTo(NodeState.REPLACING);

        // a crash mid-replacement: the next start resumes it, whatever the peers answer
        local.close();
        answers.clear();
        open(false);
        assertThat(local.state()).isEqualTo(NodeState.REPLACING);

        streamingSucceeds = true;
        local.start(hello, streaming);
        await().atMost(Duration.ofSeconds(10)).until(() -> local.state() == NodeState.NORMAL);
        assertThat(IdentityFile.read(dir).state()).isEqualTo(NodeState.NORMAL);
    }

    @Test
    void aPeerThatRemembersThisIncarnationChangesNothing() throws Exception {
        open(true);
        long mine = local.identity().incarnation();
        answers.put(URLS.get(1), new HelloSender.Answer(mine, true));
        local.start(hello, streaming);
        await().atMost(Duration.ofSeconds(10)).until(() -> local.state() == NodeState.NORMAL);
        assertThat(streams).hasValue(0);
    }

    @Test
    void aDirectoryThatHoldsDataButNoIdentityWaitsForItsPeersToo() throws Exception {
        open(false); // a restored snapshot: its peers may remember the node it was restored over
        assertThat(local.state()).isEqualTo(NodeState.PENDING);
        answers.put(URLS.get(2), new HelloSender.Answer(99, true));
        local.start(hello, streaming);
        await().atMost(Duration.ofSeconds(10)).until(() -> local.state() == NodeState.REPLACING);
    }

    @Test
    void theIdentityOutlivesARestartAndGuardsItsDirectory() throws Exception {
        NodeIdentity first = open(true).identity();
        local.close();
        assertThat(open(true).identity()).isEqualTo(first);
        local.close();
        local = null;

        assertThatThrownBy(
                        () -> LocalMembership.open(dir, Membership.of("other", FIRST), FIRST, true, TimeSource.SYSTEM))
                .isInstanceOf(IdentityMismatchException.class)
                .hasMessageContaining("belongs to cluster 'test', not to 'other'");
        Topology moved = Topology.parse(List.of(URLS.get(1), URLS.get(0), URLS.get(2)), URLS.get(0));
        assertThatThrownBy(
                        () -> LocalMembership.open(dir, Membership.of("test", moved), moved, true, TimeSource.SYSTEM))
                .isInstanceOf(IdentityMismatchException.class)
                .hasMessageContaining("is node 0")
                .hasMessageContaining("at position 2");
    }

    @Test
    void aHelloIsRememberedOnlyFromAFullReplica() throws Exception {
        open(false);
        assertThat(local.onHello(URLS.get(1), 7, NodeState.PENDING).remembers()).isFalse();
        assertThat(local.onHello(URLS.get(1), 7, NodeState.REPLACING).remembers())
                .isFalse();
        HelloSender.Answer a = local.onHello(URLS.get(1), 7, NodeState.NORMAL);
        assertThat(a.remembers()).isTrue();
        assertThat(a.remembered()).isEqualTo(7);
        // wiped and back: the new incarnation is answered with the old one until it is a full replica again
        assertThat(local.onHello(URLS.get(1), 8, NodeState.PENDING).remembered())
                .isEqualTo(7);
        local.close();
        assertThat(open(false).onHello(URLS.get(1), 8, NodeState.REPLACING).remembered())
                .isEqualTo(7);
    }
}
